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
#include "src/trace/chrome/chrome_document.hpp"
#include "src/trace/chrome/chrome_event_decode.hpp"
#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

// What identifies an op or a call in a JSON event, as the event's own
// fields (each with its JSON kind, 2 bits a part in `kinds`), so that the hot
// path looks a repeated one up without copying or converting anything: an op
// by category, name and the args that name its HLO op; a call by a cpu_op's
// name, Input Dims, types and concrete inputs and the collective args.
template <std::size_t N>
struct FieldsKeyView {
  std::array<std::string_view, N> parts;
  std::uint32_t kinds = 0;
};
template <std::size_t N>
struct FieldsKey {
  std::array<std::string, N> parts;
  std::uint32_t kinds = 0;
  explicit FieldsKey(const FieldsKeyView<N>& v) : kinds(v.kinds) {
    for (std::size_t i = 0; i < N; ++i) parts[i] = std::string(v.parts[i]);
  }
};
struct FieldsKeyHash {
  using is_transparent = void;
  template <class K>
  std::size_t operator()(const K& k) const {
    std::size_t h = k.kinds;
    for (const auto& p : k.parts) h = absl::HashOf(h, absl::string_view(p.data(), p.size()));
    return h;
  }
};
struct FieldsKeyEq {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    if (a.kinds != b.kinds) return false;
    for (std::size_t i = 0; i < a.parts.size(); ++i)
      if (std::string_view(a.parts[i]) != std::string_view(b.parts[i])) return false;
    return true;
  }
};
inline constexpr std::size_t kOpKeyParts = 11;
inline constexpr std::size_t kCallKeyParts = 11;
template <std::size_t N>
using FieldsKeyMap = absl::flat_hash_map<FieldsKey<N>, std::uint32_t, FieldsKeyHash, FieldsKeyEq>;

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
  // The interned call of a device op's collective args (kNoCall when it
  // has none) or of a cpu_op.
  enum class CallOf : std::uint8_t { kDeviceOp, kCpuOp };
  std::uint32_t call_for(const EventFields& f, CallOf of);

  const std::string& origin_;
  EventDecoder& decoder_;
  ChromeStaging& staging_;
  TraceBuilder& builder_;
  FieldsKeyMap<kOpKeyParts> op_cache_;
  FieldsKeyMap<kCallKeyParts> call_cache_;
};

}  // namespace roofline::detail
