#include "src/trace/chrome/chrome_event_sink.hpp"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::detail {
namespace {

// Every phase the Trace Event Format defines (duration, complete, instant,
// counter, async and legacy async, flow, sample, object, metadata, memory
// dump, mark, clock sync, context). Only X, B, E and M carry what we read;
// the others are skipped quietly, anything else is counted and named.
bool known_phase(char ph) {
  static constexpr std::string_view kPhases = "BEXiICbneSTpFstfPNODMVvRc()";
  return kPhases.find(ph) != std::string_view::npos;
}

// A host range that names a scope: a record_function (not the profiler's
// own ProfilerStep#N, a step) or an nn.Module (with_modules=True).
bool is_scope_range(std::string_view category, std::string_view name) {
  if (category == "user_annotation") return !name.starts_with("ProfilerStep#");
  return category == "python_function" && name.starts_with("nn.Module: ");
}

}  // namespace

absl::Status ChromeStager::event(const EventFields& f, std::uint64_t index) {
  decoder_.set_event_index(index);
  if (!f.any) return absl::OkStatus();  // TSL ends traceEvents with {}
  if (f.ph.empty()) {
    ++staging_.without_phase;
    return absl::OkStatus();
  }
  const char ph = f.ph[0];
  if (f.ph.size() != 1 || !known_phase(ph)) {
    if (staging_.unknown_phase++ == 0) staging_.first_unknown_phase = std::string(f.ph.substr(0, 16));
    return absl::OkStatus();
  }
  if (ph == 'M') return metadata(f);
  if (ph != 'X' && ph != 'B' && ph != 'E') return absl::OkStatus();  // instants, counters, flows

  TimedEvent t;
  ROOFLINE_ASSIGN_OR_RETURN(bool activity, decoder_.timed(f, ph, t));
  if (!activity) return absl::OkStatus();
  if (ph != 'E' && ++staging_.kept_events > staging_.max_events)
    return absl::ResourceExhaustedError(cat(origin_, ": traceEvents[", index, "]: more than ", staging_.max_events,
                                            " timed events; the limit bounds memory (raise it with --max-events, "
                                            "TraceReadOptions::max_events)"));
  if (is_kineto_cat(t.category)) staging_.kineto = true;
  if (ph == 'E') {
    end(t);
    return absl::OkStatus();
  }
  const std::uint8_t lane = t.category == "gpu_user_annotation" ? 1 : 0;
  const std::uint32_t line = staging_.line_for(t.pid, t.tid, lane);
  const std::uint32_t op = op_for(f, t.category);
  if (builder_.trace().ops.size() > staging_.max_ops)
    return absl::ResourceExhaustedError(cat(origin_, ": traceEvents[", index, "]: more than ", staging_.max_ops,
                                            " distinct ops; the limit bounds memory (raise it with --max-ops, "
                                            "TraceReadOptions::max_ops)"));
  if (ph == 'B') staging_.lines[line].open.push_back({t.start_ps, op});
  else complete(f, t, line, op);
  return absl::OkStatus();
}

absl::Status ChromeStager::metadata(const EventFields& f) {
  ROOFLINE_ASSIGN_OR_RETURN(IdKey pid, decoder_.id(f.pid, "pid"));
  if (f.name == "process_name") {
    std::string& name = staging_.processes[pid].name;
    name = decoder_.str_arg(f.a_name, "name");
    if (name.find("/device:") != std::string::npos || name.find("/host:") != std::string::npos) staging_.tsl = true;
  } else if (f.name == "process_labels") {
    staging_.processes[pid].labels = decoder_.str_arg(f.a_labels, "labels");
  } else if (f.name == "thread_name") {
    ROOFLINE_ASSIGN_OR_RETURN(IdKey tid, decoder_.id(f.tid, "tid"));
    staging_.thread_names[{pid, tid}] = decoder_.str_arg(f.a_name, "name");
  }
  return absl::OkStatus();
}

// Closes the innermost open 'B' on the thread.
void ChromeStager::end(const TimedEvent& t) {
  StagedLine& line = staging_.lines[staging_.line_for(t.pid, t.tid, 0)];
  if (line.open.empty()) {
    ++staging_.unmatched_end;
    return;
  }
  const OpenBegin b = line.open.back();
  line.open.pop_back();
  if (t.start_ps < b.start_ps) {
    ++staging_.unmatched_end;
    return;
  }
  line.events.push_back({.start_ps = b.start_ps, .duration_ps = t.start_ps - b.start_ps, .op = b.op});
}

void ChromeStager::complete(const EventFields& f, const TimedEvent& t, std::uint32_t line, std::uint32_t op) {
  const std::uint8_t lane = staging_.lines[line].key.lane;
  StagedEvent e{.start_ps = t.start_ps, .duration_ps = t.duration_ps, .op = op};
  if (f.external_id.present())
    if (auto v = decoder_.int_arg(f.external_id, "External id")) e.external_id = static_cast<std::uint64_t>(*v);
  if (f.correlation.present())
    if (auto v = decoder_.int_arg(f.correlation, "correlation")) e.correlation = static_cast<std::uint64_t>(*v);
  StagedLine& l = staging_.lines[line];
  if (is_device_op_cat(t.category)) {
    l.device_ops = true;
    e.own_call = call_for(f, CallOf::kDeviceOp);
  } else if (t.category == "cpu_op" && !f.name.starts_with("ProfilerStep#")) {
    // Old Kineto's ProfilerStep#N operators span whole steps; they mark
    // time, they launch nothing.
    stage_cpu_op(f, t, line, e);
  } else if (is_scope_range(t.category, f.name) && lane == 0) {
    l.scopes.push_back({.start_ps = t.start_ps,
                        .end_ps = t.start_ps + t.duration_ps,
                        .op = op,
                        .kind = t.category == "user_annotation" ? kScopeKindRecordFunction : kScopeKindModule});
  } else if (t.category == "cuda_runtime" || t.category == "cuda_driver") {
    if (e.correlation != 0)
      staging_.launches.launches_by_correlation.push_back(
          {.id = e.correlation, .ref = {line, static_cast<std::uint32_t>(l.events.size())}});
  }
  // Old Kineto records ProfilerStep#N as an operator, newer as an annotation.
  if ((t.category == "user_annotation" || t.category == "cpu_op") && f.name.starts_with("ProfilerStep#"))
    builder_.trace().host_steps.push_back(
        {.name = std::string(f.name), .start_ps = t.start_ps, .duration_ps = t.duration_ps});
  // jax's StepTraceAnnotation("train", step_num=3) and PyTorch/XLA's
  // xp.StepTrace("train_step", step_num=3) are host TraceMes with a
  // step_num arg (the trace-viewer export drops their "_r" root mark):
  // steps named "train 3". Only on processes not known as devices.
  if (f.step_num.present() && !is_device_op_cat(t.category)) {
    auto proc = staging_.processes.find(staging_.lines[line].key.pid);
    if (proc == staging_.processes.end() || !classify_plane(proc->second.name).is_device)
      builder_.trace().host_steps.push_back({.name = cat(f.name, " ", decoder_.str_arg(f.step_num, "step_num")),
                                             .start_ps = t.start_ps, .duration_ps = t.duration_ps});
  }
  if (f.device_ordinal.present())
    if (auto v = decoder_.count_arg(f.device_ordinal, "device_ordinal"); v && *v <= 1 << 20)
      l.ordinals.emplace_back(static_cast<std::uint32_t>(l.events.size()), static_cast<std::int32_t>(*v));
  l.events.push_back(e);
}

// A cpu_op as a candidate launcher: its call (name, Input Dims, Input type,
// collective args) and its span on the thread.
void ChromeStager::stage_cpu_op(const EventFields& f, const TimedEvent& t, std::uint32_t line,
                                const StagedEvent& e) {
  const std::uint32_t call = call_for(f, CallOf::kCpuOp);
  ChunkedArray<CpuOpSpan>& spans = staging_.lines[line].cpu_ops;
  if (e.external_id != 0)
    staging_.launches.cpu_ops_by_external.push_back(
        {.id = e.external_id, .ref = {line, static_cast<std::uint32_t>(spans.size())}});
  spans.push_back({.start_ps = t.start_ps,
                   .end_ps = t.start_ps + t.duration_ps,
                   .external_id = e.external_id,
                   .call = call});
}

std::uint32_t ChromeStager::call_for(const EventFields& f, CallOf of) {
  const bool collective = EventDecoder::has_collective_args(f);
  if (of == CallOf::kDeviceOp && !collective) return kNoCall;
  const bool cpu_op = of == CallOf::kCpuOp;
  // The fields the call is made of, in CallInfo's order; those it ignores
  // are left out of the key.
  const Scalar none;
  const Scalar* parts[kCallKeyParts] = {&none,
                                        cpu_op ? &f.input_dims : &none,
                                        cpu_op ? &f.input_types : &none,
                                        cpu_op ? &f.concrete_inputs : &none,
                                        collective ? &f.collective : &none,
                                        collective ? &f.in_msg : &none,
                                        collective ? &f.out_msg : &none,
                                        collective ? &f.group_size : &none,
                                        collective ? &f.dtype : &none,
                                        collective ? &f.pg_name : &none,
                                        collective ? &f.copy_bytes : &none};
  FieldsKeyView<kCallKeyParts> key;
  key.kinds = cpu_op ? 1u << 31 : 0u;
  for (std::size_t i = 0; i < kCallKeyParts; ++i) {
    key.parts[i] = parts[i]->text;
    key.kinds |= static_cast<std::uint32_t>(parts[i]->kind) << (2 * i);
  }
  if (cpu_op) key.parts[0] = f.name;
  if (auto it = call_cache_.find(key); it != call_cache_.end()) return it->second;
  // The first event with these fields: converted (and warned about) once.
  CallInfo c = decoder_.collective_args(f).value_or(CallInfo{});
  if (cpu_op) {
    c.launcher = std::string(f.name);
    if (f.input_dims.present()) append_compact_json(c.input_dims, f.input_dims.text);
    if (f.input_types.present()) append_compact_json(c.input_types, f.input_types.text);
    if (f.concrete_inputs.present()) append_compact_json(c.concrete_inputs, f.concrete_inputs.text);
  }
  const std::uint32_t id = builder_.intern_call(std::move(c));
  call_cache_.emplace(FieldsKey<kCallKeyParts>(key), id);
  return id;
}

std::uint32_t ChromeStager::op_for(const EventFields& f, std::string_view category) {
  auto text = [](const Scalar& s) { return s.kind == Scalar::kAbsent ? std::string_view() : s.text; };
  // XLA's figures are part of the op: two events of one name that carry
  // different figures (fusion.1 of two modules, told apart only later by
  // the XLA Modules line) are two ops whichever comes first in the file.
  const FieldsKeyView<kOpKeyParts> key{{category, f.name, text(f.hlo_module), text(f.hlo_op), text(f.program_id),
                                        text(f.hlo_category), text(f.long_name), text(f.step_name), text(f.flops),
                                        text(f.model_flops), text(f.bytes_accessed)}};
  if (auto it = op_cache_.find(key); it != op_cache_.end()) return it->second;
  const std::uint32_t id = builder_.intern_op(decoder_.op_info(f, category));
  op_cache_.emplace(FieldsKey<kOpKeyParts>(key), id);
  return id;
}

bool ChromeStager::wants(std::string_view key) const {
  return key == "deviceProperties" || key == "baseTimeNanoseconds" || key == "schemaVersion" ||
         key == "distributedInfo";
}

absl::Status ChromeStager::top_level(std::string_view key, std::string_view json) {
  staging_.kineto = staging_.kineto || key != "distributedInfo";
  nlohmann::json v = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (v.is_discarded()) return absl::InvalidArgumentError(cat(origin_, ": /", key, ": not valid JSON"));
  if (key == "deviceProperties") {
    if (!v.is_array())
      return absl::InvalidArgumentError(cat(origin_, ": /deviceProperties: expected an array, got ", v.type_name()));
    staging_.device_properties = std::move(v);
  } else if (key == "baseTimeNanoseconds") {
    if (!v.is_number_integer())
      return absl::InvalidArgumentError(
          cat(origin_, ": /baseTimeNanoseconds: expected an integer, got ", v.type_name()));
    staging_.base_time_ns = v.get<std::int64_t>();
  }
  return absl::OkStatus();
}

}  // namespace roofline::detail
