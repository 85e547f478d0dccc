#include "src/trace/chrome/chrome_event_scan.hpp"

#include <cstring>

#include "roofline/detail/cat.hpp"

namespace roofline::detail {
namespace {

// `key` equals the literal `lit`; the constant length lets the compiler
// compare in registers instead of calling memcmp.
template <std::size_t N>
inline bool is(std::string_view key, const char (&lit)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), lit, N - 1) == 0;
}

// The args read, by key; every other arg is skipped without being kept.
Scalar EventFields::*arg_field(std::string_view k) {
  switch (k.size()) {
    case 4: return is(k, "name") ? &EventFields::a_name : nullptr;
    case 5:
      if (is(k, "bytes")) return &EventFields::copy_bytes;
      if (is(k, "flops")) return &EventFields::flops;
      if (is(k, "tf_op")) return &EventFields::tf_op;
      if (is(k, "dtype")) return &EventFields::dtype;
      return nullptr;
    case 6:
      if (is(k, "labels")) return &EventFields::a_labels;
      if (is(k, "hlo_op")) return &EventFields::hlo_op;
      if (is(k, "source")) return &EventFields::source;
      return nullptr;
    case 8: return is(k, "step_num") ? &EventFields::step_num : nullptr;
    case 9:
      if (is(k, "long_name")) return &EventFields::long_name;
      if (is(k, "step_name")) return &EventFields::step_name;
      return nullptr;
    case 10:
      if (is(k, "hlo_module")) return &EventFields::hlo_module;
      if (is(k, "program_id")) return &EventFields::program_id;
      if (is(k, "Group size")) return &EventFields::group_size;
      if (is(k, "Input Dims")) return &EventFields::input_dims;
      if (is(k, "Input type")) return &EventFields::input_types;
      return nullptr;
    case 11:
      if (is(k, "correlation")) return &EventFields::correlation;
      if (is(k, "External id") || is(k, "external id")) return &EventFields::external_id;
      if (is(k, "model_flops")) return &EventFields::model_flops;
      return nullptr;
    case 12: return is(k, "hlo_category") ? &EventFields::hlo_category : nullptr;
    case 13: return is(k, "In msg nelems") ? &EventFields::in_msg : nullptr;
    case 14:
      if (is(k, "bytes_accessed")) return &EventFields::bytes_accessed;
      if (is(k, "device_ordinal")) return &EventFields::device_ordinal;
      if (is(k, "correlation_id")) return &EventFields::correlation;
      if (is(k, "Out msg nelems")) return &EventFields::out_msg;
      return nullptr;
    case 15:
      if (is(k, "Collective name")) return &EventFields::collective;
      if (is(k, "Concrete Inputs")) return &EventFields::concrete_inputs;
      return nullptr;
    case 17: return is(k, "shape_with_layout") ? &EventFields::shape_with_layout : nullptr;
    case 18: return is(k, "Process Group Name") ? &EventFields::pg_name : nullptr;
    default: return nullptr;
  }
}

// Errors naming a JSON kind, out of line (see JsonScanner::fail_got).
[[gnu::cold, gnu::noinline]] R fail_kind(JsonScanner& sc, const char* at, std::string_view what) {
  return sc.fail(at, cat(what, json_kind(*at)));
}

R scalar(JsonScanner& sc, const char*& p, Scalar& out) {
  ROOFLINE_JSON_TRY(sc.ws(p));
  out.at = p;
  if (*p == '"') {
    out.kind = Scalar::kString;
    return sc.string(p, out.text);
  }
  if (*p == '-' || (*p >= '0' && *p <= '9')) {
    out.kind = Scalar::kNumber;
    return sc.number(p, out.text);
  }
  const char* s = p;
  ROOFLINE_JSON_TRY(sc.skip(p));
  out.kind = Scalar::kOther;
  out.text = std::string_view(s, static_cast<std::size_t>(p - s));
  return R::kOk;
}

R args(JsonScanner& sc, const char*& p, EventFields& f) {
  ROOFLINE_JSON_TRY(sc.ws(p));
  if (*p != '{') {
    const char* at = p;
    ROOFLINE_JSON_TRY(sc.skip(p));
    if (std::string_view(at, static_cast<std::size_t>(p - at)) == "null") return R::kOk;
    return fail_kind(sc, at, "args: expected an object, got ");
  }
  ++p;
  ROOFLINE_JSON_TRY(sc.ws(p));
  if (*p == '}') {
    ++p;
    return R::kOk;
  }
  for (;;) {
    ROOFLINE_JSON_TRY(sc.ws(p));
    if (*p != '"') [[unlikely]] return sc.fail_got(p, "expected a key in args");
    std::string_view key;
    ROOFLINE_JSON_TRY(sc.string(p, key));
    ROOFLINE_JSON_TRY(sc.expect(p, ':', "after a key"));
    if (Scalar EventFields::*field = arg_field(key)) {
      ROOFLINE_JSON_TRY(scalar(sc, p, f.*field));
    } else {
      ROOFLINE_JSON_TRY(sc.skip(p, 1));
    }
    ROOFLINE_JSON_TRY(sc.ws(p));
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == '}') {
      ++p;
      return R::kOk;
    }
    return sc.fail_got(p, "expected ',' or '}' in args");
  }
}

// One "key": value of the event object.
R member(JsonScanner& sc, const char*& p, EventFields& f) {
  ROOFLINE_JSON_TRY(sc.ws(p));
  if (*p != '"') [[unlikely]] return sc.fail_got(p, "expected a key");
  std::string_view key;
  ROOFLINE_JSON_TRY(sc.string(p, key));
  ROOFLINE_JSON_TRY(sc.expect(p, ':', "after a key"));
  ROOFLINE_JSON_TRY(sc.ws(p));
  f.any = true;
  std::string_view* str = nullptr;
  Scalar* num = nullptr;
  switch (key.size()) {
    case 2:
      if (is(key, "ph")) str = &f.ph;
      else if (is(key, "ts")) num = &f.ts;
      break;
    case 3:
      if (is(key, "cat")) str = &f.cat;
      else if (is(key, "pid")) num = &f.pid;
      else if (is(key, "tid")) num = &f.tid;
      else if (is(key, "dur")) num = &f.dur;
      break;
    case 4:
      if (is(key, "name")) str = &f.name;
      else if (is(key, "args")) return args(sc, p, f);
      break;
    default: break;
  }
  if (str != nullptr) {
    if (*p != '"') [[unlikely]] return sc.fail(p, cat(key, ": expected a string, got ", json_kind(*p)));
    return sc.string(p, *str);
  }
  if (num != nullptr) return scalar(sc, p, *num);
  return sc.skip(p, 1);
}

}  // namespace

R scan_event(JsonScanner& sc, const char*& p, EventFields& f, EventEnd& end) {
  f = EventFields{};
  end.closed = false;
  ROOFLINE_JSON_TRY(sc.ws(p));
  f.at = p;
  if (*p != '{') [[unlikely]] return fail_kind(sc, p, "expected an event object, got ");
  ++p;
  ROOFLINE_JSON_TRY(sc.ws(p));
  if (*p != '}') {
    for (;;) {
      ROOFLINE_JSON_TRY(member(sc, p, f));
      ROOFLINE_JSON_TRY(sc.ws(p));
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == '}') break;
      return sc.fail_got(p, "expected ',' or '}' in an event");
    }
  }
  ++p;  // '}'
  end.closed = true;
  ROOFLINE_JSON_TRY(sc.ws(p));
  if (*p == ',') {
    ++p;
    end.last = false;
    return R::kOk;
  }
  if (*p == ']') {
    ++p;
    end.last = true;
    return R::kOk;
  }
  return sc.fail_got(p, "expected ',' or ']' after an event");
}

}  // namespace roofline::detail
