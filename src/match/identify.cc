// Devices and the chip (roofline/match/identify.hpp).
#include "roofline/match/identify.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "src/match/peaks.hpp"

namespace roofline {

using detail::cat;

IdentifiedChip identify_device(const Device& d) {
  return identify_chip({.vendor = d.vendor,
                        .model = d.model,
                        .compute_capability_major = d.caps.compute_capability_major,
                        .compute_capability_minor = d.caps.compute_capability_minor,
                        .core_count = d.caps.core_count,
                        .memory_bytes = d.caps.memory_bytes});
}

const Chip* reported_chip(const Device& device) { return identify_device(device).chip; }

std::string in_words(std::string text, const OptionWords& words) {
  const std::pair<std::string_view, std::string_view> phrases[] = {{kSetChipAdvice, words.set_chip_advice},
                                                                   {kGivenChipSource, words.given_chip_source},
                                                                   {kOneDeviceAdvice, words.one_device_advice}};
  for (const auto& [library, front_end] : phrases)
    for (std::size_t at = text.find(library); at != std::string::npos; at = text.find(library, at + front_end.size()))
      text.replace(at, library.size(), front_end);
  return text;
}

namespace {

// The devices (with `device_id`, or all) for which `has_ops(index)` holds.
template <class HasOps>
absl::StatusOr<std::vector<std::size_t>> devices_with_ops(const Trace& trace, std::optional<int> device_id,
                                                          HasOps has_ops) {
  std::vector<std::size_t> selected;
  std::set<int> ids;
  for (std::size_t i = 0; i < trace.devices.size(); ++i) {
    const Device& d = trace.devices[i];
    ids.insert(d.id);
    if (device_id && d.id != *device_id) continue;
    if (has_ops(i)) selected.push_back(i);
  }
  if (!selected.empty()) return selected;
  if (device_id) {
    std::string known;
    for (int id : ids) known += cat(known.empty() ? "" : ", ", id);
    return absl::NotFoundError(cat(trace.source, ": no device ", *device_id, " with op events (devices: ",
                                   known.empty() ? "none" : known, ")"));
  }
  return absl::InvalidArgumentError(cat(trace.source, ": the trace has no device op events to report on"));
}

}  // namespace

absl::StatusOr<std::vector<std::size_t>> select_devices(const Trace& trace, std::optional<int> device_id) {
  return devices_with_ops(trace, device_id, [&](std::size_t i) {
    const Device& d = trace.devices[i];
    return std::any_of(d.events.begin(), d.events.end(),
                       [&](const Event& e) { return d.lines[e.line].role == LineRole::kOps; });
  });
}

absl::StatusOr<std::vector<std::size_t>> select_devices(const Trace& trace, const MeasuredTrace& measured,
                                                        std::optional<int> device_id) {
  return devices_with_ops(trace, device_id, [&](std::size_t i) {
    return i < measured.devices.size() && measured.devices[i].op_events;
  });
}

namespace {

// Notes where the trace's own figures for the devices (XPlane device stats)
// differ from `chip`'s beyond kPeakNoteTolerance: one per quantity and value.
void note_reported_peaks(const Trace& trace, std::span<const std::size_t> devices, const Chip& chip,
                         std::vector<std::string>& notes) {
  struct Figure {
    std::string what;
    double reported, table;
    std::string unit, device;
    int others = 0;
  };
  std::vector<Figure> differing;
  auto check = [&](std::string what, std::optional<double> reported, double table, std::string unit,
                   const Device& d) {
    if (!reported || table <= 0 || std::abs(*reported - table) <= kPeakNoteTolerance * table) return;
    for (Figure& f : differing)
      if (f.what == what && f.reported == *reported) return void(++f.others);
    differing.push_back({std::move(what), *reported, table, std::move(unit), d.name});
  };
  const double bf16 = detail::peak_flops_per_s(chip, DType::kBF16);
  for (std::size_t i : devices) {
    const Device& d = trace.devices[i];
    check("bf16 peak", d.caps.peak_flops_per_s, bf16, "FLOP/s", d);
    check("HBM bandwidth", d.caps.hbm_bytes_per_s, chip.hbm_bytes_per_s, "B/s", d);
  }
  for (const Figure& f : differing)
    notes.push_back(cat("the trace reports a ", f.what, " of ", format_si(f.reported, f.unit.c_str(), 4), " for ",
                        f.device, f.others > 0 ? cat(" (and ", f.others, " more)") : std::string(), "; ",
                        chip.name, "'s is ", format_si(f.table, f.unit.c_str(), 4),
                        ", which the predictions use"));
}

}  // namespace

absl::StatusOr<ChipChoice> decide_chip(const Trace& trace, std::span<const std::size_t> devices,
                                       const Chip* given) {
  if (given) {
    ChipChoice c{.chip = given, .source = std::string(kGivenChipSource)};
    for (std::size_t i : devices) {
      const Device& d = trace.devices[i];
      const Chip* reported = reported_chip(d);
      if (reported && reported->name != given->name) {
        c.notes.push_back(cat("the trace says the devices are ", identify_device(d).model, " (", reported->name,
                     "); predicting on ",
                     given->name, " as asked"));
        break;
      }
    }
    return c;
  }
  // One report costs every op on one chip: devices of two chips (a GPU
  // trace and a TPU trace read together) would have half their ops costed
  // on the wrong one, so they are refused, named with their hosts (the
  // files' stems when files name none).
  auto label = [&](std::size_t i, const IdentifiedChip& id) {
    const Device& d = trace.devices[i];
    return cat("'", d.name, "'", d.host.empty() ? "" : cat(" of ", d.host), " (",
               id.chip ? id.chip->name : id.model.empty() ? std::string("an unknown chip") : id.model, ", ",
               device_kind_name(d.kind), ")");
  };
  auto accelerator = [](DeviceKind k) { return k == DeviceKind::kGpu || k == DeviceKind::kTpu; };
  std::optional<std::pair<std::size_t, IdentifiedChip>> first_chip, first_accelerator;
  for (std::size_t i : devices) {
    const IdentifiedChip id = identify_device(trace.devices[i]);
    const DeviceKind kind = trace.devices[i].kind;
    const auto* other = id.chip && first_chip && first_chip->second.chip->name != id.chip->name ? &*first_chip
                        : accelerator(kind) && first_accelerator && trace.devices[first_accelerator->first].kind != kind
                            ? &*first_accelerator
                            : nullptr;
    if (other)
      return absl::InvalidArgumentError(
          cat(trace.source, ": devices of two kinds of chip, ", label(other->first, other->second), " and ",
              label(i, id), ", but a report costs every op on one chip: report each file on its own (or choose "
              "one chip with --chip, its devices with --device)"));
    if (id.chip && !first_chip) first_chip.emplace(i, id);
    if (accelerator(kind) && !first_accelerator) first_accelerator.emplace(i, id);
  }
  for (std::size_t i : devices) {
    const IdentifiedChip id = identify_device(trace.devices[i]);
    if (!id.chip) continue;
    ChipChoice c{.chip = id.chip, .source = cat("detected from device '", id.model, "'")};
    if (!id.warning.empty()) c.notes.push_back(id.warning);
    note_reported_peaks(trace, devices, *id.chip, c.notes);
    return c;
  }
  if (devices.empty()) return absl::InvalidArgumentError(cat(trace.source, ": no devices to tell the chip of"));
  const Device& d = trace.devices[devices.front()];
  const std::string model = identify_device(d).model;
  return absl::InvalidArgumentError(cat(trace.source, ": cannot tell which chip device '", d.name, "' (",
                                        model.empty() ? "no model name" : model, ") is; ",
                                        kSetChipAdvice));
}

}  // namespace roofline
