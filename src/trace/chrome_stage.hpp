// What each trace event means, as it streams: process and thread names from
// metadata events ('M'), complete ('X') and begin/end ('B'/'E') events onto
// their staged (pid, tid) line with their op and call interned, and what
// Kineto needs to link GPU work to its launcher later: the cpu_op spans of
// each host thread and the runtime calls by correlation id. Also the
// top-level metadata Kineto writes (deviceProperties, baseTimeNanoseconds).
// The sink of chrome_document.hpp; fills a ChromeStaging. Internal.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "src/trace/chrome_document.hpp"
#include "src/trace/chrome_event_decode.hpp"
#include "src/trace/chrome_staging.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

// What identifies an op in a JSON event: category, name and the args that
// name its HLO op. Looked up part by part, so the hot path copies nothing.
inline constexpr std::size_t kOpKeyParts = 8;
struct OpKeyView {
  std::array<std::string_view, kOpKeyParts> parts;
};
struct OpKey {
  std::array<std::string, kOpKeyParts> parts;
  explicit OpKey(const OpKeyView& v) {
    for (std::size_t i = 0; i < kOpKeyParts; ++i) parts[i] = std::string(v.parts[i]);
  }
};
struct OpKeyHash {
  using is_transparent = void;
  template <class K>
  std::size_t operator()(const K& k) const {
    std::size_t h = 0;
    for (const auto& p : k.parts) h = absl::HashOf(h, absl::string_view(p.data(), p.size()));
    return h;
  }
};
struct OpKeyEq {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    for (std::size_t i = 0; i < kOpKeyParts; ++i)
      if (std::string_view(a.parts[i]) != std::string_view(b.parts[i])) return false;
    return true;
  }
};

class ChromeStager : public ChromeDocumentSink {
 public:
  ChromeStager(const std::string& origin, EventDecoder& decoder, ChromeStaging& staging, TraceBuilder& builder)
      : origin_(origin), decoder_(decoder), staging_(staging), builder_(builder) {}

  absl::Status event(const EventFields& f, std::uint64_t index) override;
  bool wants(std::string_view key) const override;
  absl::Status top_level(std::string_view key, std::string_view json) override;

 private:
  absl::Status metadata(const EventFields& f);
  void end(const TimedEvent& t);
  void complete(const EventFields& f, const TimedEvent& t, std::uint32_t line, std::uint32_t op);
  void stage_cpu_op(const EventFields& f, const TimedEvent& t, std::uint32_t line, const StagedEvent& e);
  std::uint32_t op_for(const EventFields& f, std::string_view category);

  const std::string& origin_;
  EventDecoder& decoder_;
  ChromeStaging& staging_;
  TraceBuilder& builder_;
  absl::flat_hash_map<OpKey, std::uint32_t, OpKeyHash, OpKeyEq> op_cache_;
};

}  // namespace roofline::detail
