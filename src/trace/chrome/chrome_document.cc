#include "src/trace/chrome/chrome_document.hpp"

#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::detail {
namespace {

class DocumentReader {
 public:
  DocumentReader(JsonStream& s, ChromeDocumentSink& sink) : s_(s), w_(s.window()), sc_(s.scanner()), sink_(sink) {}

  absl::Status run() {
    ROOFLINE_RETURN_IF_ERROR(s_.start());
    ROOFLINE_ASSIGN_OR_RETURN(bool any, s_.skip_ws());
    if (!any) return absl::DataLossError(cat(s_.origin(), ": empty file, not a trace"));
    if (*w_.p == '[') {
      ++w_.p;
      ROOFLINE_RETURN_IF_ERROR(events_array(Shape::kBareArray));
    } else if (*w_.p == '{') {
      ++w_.p;
      ROOFLINE_RETURN_IF_ERROR(top_level_object());
    } else {
      return absl::InvalidArgumentError(cat(s_.origin(), ": not a trace: JSON trace files start with '{' or '[', got ",
                                            sc_.describe(w_.p), s_.where(w_.p)));
    }
    ROOFLINE_ASSIGN_OR_RETURN(bool trailing, s_.skip_ws());
    if (trailing)
      return absl::InvalidArgumentError(cat(s_.origin(), ": unexpected data after the JSON value", s_.where(w_.p)));
    if (!saw_trace_events_)
      return absl::NotFoundError(cat(s_.origin(), ": no traceEvents: JSON, but not a Chrome trace"));
    return absl::OkStatus();
  }

 private:
  enum class Shape { kBareArray, kInObject };

  // After the '['.
  absl::Status events_array(Shape shape) {
    saw_trace_events_ = true;
    const bool bare = shape == Shape::kBareArray;
    for (;;) {
      ROOFLINE_ASSIGN_OR_RETURN(bool more, s_.skip_ws());
      if (!more) {
        // The Chrome "JSON Array Format" may omit the closing bracket.
        if (bare) return absl::OkStatus();
        return absl::DataLossError(cat(s_.origin(), ": truncated JSON: the data ends inside traceEvents", " after ",
                                       event_index_, " events", s_.where(w_.end)));
      }
      if (*w_.p == ']') {
        ++w_.p;
        return absl::OkStatus();
      }
      EventEnd end;
      s_.set_event_context(event_index_);
      ROOFLINE_RETURN_IF_ERROR(s_.unit(
          [&](const char*& p) {
            const R r = scan_event(sc_, p, fields_, end);
            // A bare array may end right after an event, without ']'.
            if (r == R::kMore && bare && w_.eof() && end.closed) {
              end.last = true;
              p = w_.end;
              return R::kOk;
            }
            return r;
          }));
      ROOFLINE_RETURN_IF_ERROR(sink_.event(fields_, event_index_));
      ++event_index_;
      if (end.last) return absl::OkStatus();
    }
  }

  // After the '{': key, value, ',' or '}', ...
  absl::Status top_level_object() {
    bool first = true;
    for (;;) {
      std::string key;
      bool done = false;
      s_.set_context("the top-level object");
      ROOFLINE_RETURN_IF_ERROR(s_.unit(
          [&](const char*& p) {
            ROOFLINE_JSON_TRY(sc_.ws(p));
            if (*p == '}' && first) {
              ++p;
              done = true;
              return R::kOk;
            }
            if (*p != '"') return sc_.fail(p, cat("expected a key, got ", sc_.describe(p)));
            std::string_view k;
            ROOFLINE_JSON_TRY(sc_.string(p, k));
            ROOFLINE_JSON_TRY(sc_.expect(p, ':', "after a key"));
            key.assign(k);
            return R::kOk;
          }));
      if (done) return absl::OkStatus();
      first = false;
      ROOFLINE_RETURN_IF_ERROR(top_level_value(key));
      s_.set_context("the top-level object");
      ROOFLINE_RETURN_IF_ERROR(s_.unit(
          [&](const char*& p) {
            ROOFLINE_JSON_TRY(sc_.ws(p));
            if (*p == ',') {
              ++p;
              return R::kOk;
            }
            if (*p == '}') {
              ++p;
              done = true;
              return R::kOk;
            }
            return sc_.fail(p, cat("expected ',' or '}' after a top-level value, got ", sc_.describe(p)));
          }));
      if (done) return absl::OkStatus();
    }
  }

  absl::Status top_level_value(const std::string& key) {
    if (key == "traceEvents") {
      ROOFLINE_ASSIGN_OR_RETURN(bool more, s_.skip_ws());
      if (!more || *w_.p != '[')
        return absl::InvalidArgumentError(cat(s_.origin(), ": traceEvents: expected an array", s_.where(w_.p)));
      ++w_.p;
      return events_array(Shape::kInObject);
    }
    s_.set_context(cat("the top-level key \"", key, "\""));
    // Small metadata values are read whole; anything else is skipped as it streams.
    if (!sink_.wants(key)) return s_.skip_value();
    std::string_view raw;
    ROOFLINE_RETURN_IF_ERROR(s_.unit(
        [&](const char*& p) {
          ROOFLINE_JSON_TRY(sc_.ws(p));
          const char* s = p;
          ROOFLINE_JSON_TRY(sc_.skip(p));
          raw = std::string_view(s, static_cast<std::size_t>(p - s));
          return R::kOk;
        }));
    return sink_.top_level(key, raw);
  }

  JsonStream& s_;
  JsonWindow& w_;
  JsonScanner& sc_;
  ChromeDocumentSink& sink_;
  EventFields fields_;
  std::uint64_t event_index_ = 0;
  bool saw_trace_events_ = false;
};

}  // namespace

absl::Status read_chrome_document(JsonStream& stream, ChromeDocumentSink& sink) {
  return DocumentReader(stream, sink).run();
}

}  // namespace roofline::detail
