// Robust fit of a chip's calibration curves: see roofline/calibrate/fit.hpp.
//
// Per class the parameters are the floor and inverse efficiencies
// (1 / e, one per term, and one per peak class for matmuls), so that for a
// fixed choice of which term is each sample's maximum the model is linear:
// T_i = floor + inv[k_i] * x_i. The fit alternates
//   1. the assignment k_i = argmax_k inv[k] * x_ik under the current
//      parameters, and
//   2. iteratively reweighted least squares on that linear model, each row
//      divided by the previous iterate's expectation E_i, so that at
//      convergence the residual is (measured - E) / E = measured / E - 1,
//      the relative error the fidelity benchmark reports;
// from two starts (the built-in curve, and the bare roofline), keeping the
// parameters with the smallest median |error| on the class's samples (then
// the smallest 90th percentile; the starts themselves included, so a fit is
// never worse on its own data than the curve it started from).
#include "roofline/calibrate/fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <Eigen/Dense>

#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

constexpr double kMinInverse = 1e-3;  // an efficiency of at most 1000
constexpr double kMaxInverse = 1e4;   // an efficiency of at least 1e-4
constexpr double kMinScale = 0.01;    // robust scale floor: 1% relative error
constexpr double kHuber = 1.345;      // 95% efficiency at the normal (Huber 1981)
constexpr double kTukey = 4.685;      // 95% efficiency at the normal (Beaton & Tukey 1974)
constexpr int kHuberIterations = 3;
constexpr int kIrlsIterations = 50;
constexpr int kOuterIterations = 30;
constexpr int kTerms = 3;  // math, memory, link

// One class's parameters: floor, then inverse efficiencies indexed as
// [0] math (shared), [1 .. peaks] math of one peak class, then memory, link.
struct Params {
  double floor_s = 0;
  std::vector<double> inv;
};

struct ClassProblem {
  std::vector<const CalibrationSample*> samples;
  // Per sample, the share of the class's rates its size reaches on the
  // calibration fitted (size_factors): its terms are divided by them, so
  // that the efficiencies fitted are those of the largest ops, as the
  // calibration's curves take them.
  std::vector<SizeFactors> size;
  Params reference;  // the built-in curve: which samples inform which efficiency
  std::vector<int> math_index;  // per sample: 0 (shared) or 1 + own peak
  std::vector<PeakClass> own_peaks;
  int mem_index() const { return 1 + static_cast<int>(own_peaks.size()); }
  int link_index() const { return mem_index() + 1; }
  int params() const { return link_index() + 1; }
  double term(std::size_t i, int k) const {
    const CalibrationSample& s = *samples[i];
    return k == 0 ? s.t_math_s / size[i].math : k == 1 ? expected_mem_s(s) / size[i].memory : s.t_link_s;
  }
  void add(const CalibrationSample& s, const ChipCalibration& cal) {
    samples.push_back(&s);
    size.push_back(size_factors(s.flops, s.hbm_bytes, s.cost_class, cal, s.gemm));
  }
  int index(std::size_t i, int k) const { return k == 0 ? math_index[i] : k == 1 ? mem_index() : link_index(); }
  int argmax(const Params& p, std::size_t i) const {
    int best = 0;
    double best_t = -1;
    for (int k = 0; k < kTerms; ++k) {
      const double t = p.inv[index(i, k)] * term(i, k);
      if (t > best_t) best_t = t, best = k;
    }
    return best;
  }
  double model(const Params& p, std::size_t i) const {
    const int k = argmax(p, i);
    return p.floor_s + p.inv[index(i, k)] * term(i, k);
  }
};

double huber_weight(double u) { return std::abs(u) <= kHuber ? 1 : kHuber / std::abs(u); }
double tukey_weight(double u) {
  const double z = u / kTukey;
  return std::abs(z) >= 1 ? 0 : (1 - z * z) * (1 - z * z);
}

// How a candidate is judged: the median of |measured / expected - 1|, then
// its 90th percentile. The median, as the robust estimator it picks among:
// Tukey's weights already leave the ops far off the curve out, and a score
// that also summed the tail let them back in. On the V100 trace the tail is
// batch norms, reductions and pooling at 1.3 to 5 times what streaming
// kernels reach; to shrink it a fold's fit lowered the memory efficiency
// from 0.88 to about 0.65, and every large element-wise op was then
// expected 1.4 times slower than it ran (cross-validated median 25.1%, 15.7%
// judged by the median; docs/fidelity.md).
using Score = std::pair<double, double>;  // (median, 90th percentile)
Score score(const ClassProblem& c, const Params& p) {
  std::vector<double> e;
  for (std::size_t i = 0; i < c.samples.size(); ++i) e.push_back(abs_error(c.samples[i]->measured_s, c.model(p, i)));
  return {quantile(e, 0.5), quantile(e, 0.9)};
}

// min |A x - b|^2 with lo <= x <= hi: least squares over the free columns,
// pinning the worst violator at its bound until none is left (an active
// set method; with at most a dozen columns it ends in a few solves).
Eigen::VectorXd bounded_least_squares(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& lo,
                                      const Eigen::VectorXd& hi) {
  const auto m = a.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(m);
  std::vector<bool> pinned(static_cast<std::size_t>(m), false);
  for (Eigen::Index round = 0; round <= m; ++round) {
    std::vector<Eigen::Index> free;
    Eigen::VectorXd rhs = b;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (pinned[static_cast<std::size_t>(j)]) rhs -= a.col(j) * x(j);
      else free.push_back(j);
    }
    if (free.empty()) break;
    Eigen::MatrixXd af(a.rows(), static_cast<Eigen::Index>(free.size()));
    for (std::size_t f = 0; f < free.size(); ++f) af.col(static_cast<Eigen::Index>(f)) = a.col(free[f]);
    const Eigen::VectorXd xf = af.colPivHouseholderQr().solve(rhs);
    Eigen::Index worst = -1;
    double worst_v = 0;
    for (std::size_t f = 0; f < free.size(); ++f) {
      const Eigen::Index j = free[f];
      x(j) = xf(static_cast<Eigen::Index>(f));
      const double v = std::max(lo(j) - x(j), x(j) - hi(j)) * a.col(j).norm();
      if (!std::isfinite(x(j)) || v > worst_v) worst_v = std::isfinite(x(j)) ? v : INFINITY, worst = j;
    }
    if (worst < 0) break;
    x(worst) = !std::isfinite(x(worst)) || x(worst) < lo(worst) ? lo(worst) : hi(worst);
    pinned[static_cast<std::size_t>(worst)] = true;
  }
  for (Eigen::Index j = 0; j < m; ++j) x(j) = std::clamp(x(j), lo(j), hi(j));
  return x;
}

// Whether sample i can tell the efficiency of its term k: at the built-in
// curve that term is at least half of its expected time. A launch-bound op
// (a 20 ns copy that takes 3 us) says nothing of the rate its bytes move at;
// left free on such ops alone, an efficiency followed their scatter to a
// bound (h100 bert-small's 9 element-wise ops: memory efficiency 1000, so
// every large copy of the next trace was expected 1000 times too fast).
bool informs(const ClassProblem& c, std::size_t i, int k) {
  const double t = c.reference.inv[static_cast<std::size_t>(c.index(i, k))] * c.term(i, k);
  return t >= 0.5 * (c.reference.floor_s + t);
}

// IRLS for a fixed assignment; an efficiency informed by too few samples
// stays fixed (the floor is always fitted).
Params irls(const ClassProblem& c, const std::vector<int>& assigned, Params p, int min_samples) {
  const std::size_t n = c.samples.size();
  std::vector<int> per_param(static_cast<std::size_t>(c.params()), 0);
  for (std::size_t i = 0; i < n; ++i)
    if (informs(c, i, assigned[i])) ++per_param[static_cast<std::size_t>(c.index(i, assigned[i]))];
  // Columns: the floor, then each free inverse efficiency.
  std::vector<int> column_of(static_cast<std::size_t>(c.params()), -1);
  int columns = 1;
  for (int j = 0; j < c.params(); ++j)
    if (per_param[static_cast<std::size_t>(j)] >= min_samples) column_of[static_cast<std::size_t>(j)] = columns++;
  Eigen::VectorXd lo(columns), hi(columns);
  lo.setConstant(kMinInverse);
  hi.setConstant(kMaxInverse);
  lo(0) = 0;
  hi(0) = INFINITY;

  std::vector<double> weight(n, 1), previous(n);
  for (std::size_t i = 0; i < n; ++i) previous[i] = c.model(p, i);
  for (int it = 0; it < kIrlsIterations; ++it) {
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), columns);
    Eigen::VectorXd b(static_cast<Eigen::Index>(n));
    double total_weight = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto row = static_cast<Eigen::Index>(i);
      const double scale = std::sqrt(weight[i]) / previous[i];
      total_weight += weight[i];
      const int j = c.index(i, assigned[i]);
      const double x = c.term(i, assigned[i]);
      double rhs = c.samples[i]->measured_s;
      a(row, 0) = scale;
      if (column_of[static_cast<std::size_t>(j)] >= 0) a(row, column_of[static_cast<std::size_t>(j)]) = scale * x;
      else rhs -= p.inv[static_cast<std::size_t>(j)] * x;
      b(row) = scale * rhs;
    }
    if (total_weight <= 0) break;
    const Eigen::VectorXd x = bounded_least_squares(a, b, lo, hi);
    Params next = p;
    next.floor_s = x(0);
    for (int j = 0; j < c.params(); ++j)
      if (column_of[static_cast<std::size_t>(j)] >= 0) next.inv[static_cast<std::size_t>(j)] = x(column_of[static_cast<std::size_t>(j)]);
    double change = std::abs(next.floor_s - p.floor_s) / std::max(next.floor_s, 1e-12);
    for (std::size_t j = 0; j < p.inv.size(); ++j) change = std::max(change, std::abs(next.inv[j] - p.inv[j]) / next.inv[j]);
    p = next;
    std::vector<double> r(n), abs_r(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double e = p.floor_s + p.inv[static_cast<std::size_t>(c.index(i, assigned[i]))] * c.term(i, assigned[i]);
      previous[i] = e;
      r[i] = (c.samples[i]->measured_s - e) / e;
      abs_r[i] = std::abs(r[i]);
    }
    const double s = std::max(1.4826 * quantile(abs_r, 0.5), kMinScale);
    for (std::size_t i = 0; i < n; ++i) weight[i] = it < kHuberIterations ? huber_weight(r[i] / s) : tukey_weight(r[i] / s);
    if (it >= kHuberIterations && change < 1e-10) break;
  }
  return p;
}

Params fit_from(const ClassProblem& c, Params start, int min_samples) {
  Params best = start;
  Score best_score = score(c, start);
  std::vector<int> assigned(c.samples.size(), -1);
  Params p = start;
  for (int outer = 0; outer < kOuterIterations; ++outer) {
    std::vector<int> next(c.samples.size());
    for (std::size_t i = 0; i < c.samples.size(); ++i) next[i] = c.argmax(p, i);
    if (next == assigned) break;
    assigned = std::move(next);
    p = irls(c, assigned, p, min_samples);
    const Score s = score(c, p);
    if (s < best_score) best_score = s, best = p;
  }
  return best;
}

// Parameters that start at curve `k` (math efficiency `math`, per-peak
// ones as `per_peak` gives them for c's own peaks).
template <typename PerPeak>
Params start_at(const ClassProblem& c, const ClassCurve& k, double math, PerPeak per_peak) {
  Params p{.floor_s = k.floor_s, .inv = std::vector<double>(static_cast<std::size_t>(c.params()), 1)};
  p.inv[0] = 1 / math;
  for (std::size_t j = 0; j < c.own_peaks.size(); ++j) p.inv[1 + j] = 1 / per_peak(c.own_peaks[j]);
  p.inv[static_cast<std::size_t>(c.mem_index())] = 1 / k.memory_efficiency;
  p.inv[static_cast<std::size_t>(c.link_index())] = 1 / k.link_efficiency;
  return p;
}

// The better of the fits from two starts.
Params fit_best(const ClassProblem& c, const Params& one, const Params& two, int min_samples) {
  const Params a = fit_from(c, one, min_samples);
  const Params b = fit_from(c, two, min_samples);
  return score(c, b) < score(c, a) ? b : a;
}

// The curve of fitted parameters (the per-peak efficiencies aside).
ClassCurve curve_of(const ClassProblem& c, const Params& p) {
  return {.floor_s = p.floor_s,
          .math_efficiency = 1 / p.inv[0],
          .memory_efficiency = 1 / p.inv[static_cast<std::size_t>(c.mem_index())],
          .link_efficiency = 1 / p.inv[static_cast<std::size_t>(c.link_index())]};
}

std::string fmt(double v) { return detail::cat(std::round(v * 100) / 100); }

// Notes an efficiency above 1 of a curve named `name`. A memory efficiency
// is against HBM's bandwidth (expected_mem_s), so above 1 it beat HBM, not
// necessarily the bound (L2's where it fits).
void note_beaten(std::vector<std::string>& notes, std::string_view name, std::string_view what, double e) {
  if (e > 1)  // three decimals, so that 1.002 is not printed "1 > 1"
    notes.push_back(detail::cat(name, ": ", what, " efficiency ", std::round(e * 1000) / 1000,
                                what == "memory" ? " > 1: HBM's bandwidth was beaten" : " > 1: the roofline was beaten",
                                " (a working set on chip, or a cost model that charges more than the op moves)"));
}

void note_beaten(std::vector<std::string>& notes, std::string_view name, const ClassCurve& k) {
  note_beaten(notes, name, "math", k.math_efficiency);
  note_beaten(notes, name, "memory", k.memory_efficiency);
  note_beaten(notes, name, "link", k.link_efficiency);
}

// Whether an op's expected time on `cal` is mostly the launch floor of its
// class's curve: an op that says what a launch costs, not what a rate is.
bool launch_bound(const CalibrationSample& s, const ChipCalibration& cal) {
  return cal.curve(s.cost_class).floor_s >= 0.5 * expected_s(s, cal);
}

// Per class, each kernel family with FitOptions::min_family_samples ops or
// more (and other ops beside it) fitted on its own, from the class's curve
// and from that curve without its floor; kept where it beats the class's curve on the
// family's ops by kFamilyGain of median |error| and its 90th percentile is
// no worse.
void fit_families(CalibrationFit& out, const FitOptions& options) {
  std::map<std::pair<int, std::string>, std::vector<const CalibrationSample*>> groups;
  std::array<std::size_t, kCostClassCount> per_class{};
  for (const CalibrationSample& s : out.samples) {
    groups[{static_cast<int>(s.cost_class), s.family}].push_back(&s);
    ++per_class[static_cast<std::size_t>(s.cost_class)];
  }
  for (const auto& [key, members] : groups) {
    const auto cls = static_cast<CostClass>(key.first);
    // Only within a class that was fitted: one kept on the built-in curve
    // (too few ops) has nothing measured for a family to differ from.
    if (key.second.empty() || static_cast<int>(members.size()) < options.min_family_samples ||
        members.size() == per_class[static_cast<std::size_t>(key.first)] ||
        out.classes[static_cast<std::size_t>(key.first)].origin != CurveOrigin::kFitted)
      continue;
    // Too few ops to tell a rate (min_samples), a family can tell only its
    // floor, a launch cost: only where its ops are launch-bound on the
    // class's curve. Else the floor takes up whatever the class's rates miss
    // on those ops (the V100's two volta_sgemm_128x32_nt, convolutions the
    // trace leaves ambiguous: a 271 us "launch" for every kernel of the name).
    if (static_cast<int>(members.size()) < options.min_samples &&
        !std::all_of(members.begin(), members.end(),
                     [&](const CalibrationSample* m) { return launch_bound(*m, out.calibration); }))
      continue;
    ClassProblem c;
    for (const CalibrationSample* m : members) c.add(*m, out.calibration);
    c.math_index.assign(members.size(), 0);
    // The class's curve (a matmul's efficiency of the unit its first op ran on).
    const Params from_class = start_at(c, out.calibration.curve(cls),
                                       out.calibration.math_efficiency(cls, members.front()->peak_used),
                                       [](PeakClass) { return 1.0; });  // no own peaks in a family
    c.reference = from_class;
    // The second start has no floor but the class's efficiencies, so that an
    // efficiency too few of the family's ops inform stays the class's, not
    // the bare roofline's 1 (launch-bound converting copies would otherwise
    // be expected to move large tensors at HBM's peak).
    Params floorless = from_class;
    floorless.floor_s = 0;
    const Params p = fit_best(c, from_class, floorless, options.min_samples);
    std::vector<CalibrationSample> own;
    for (const CalibrationSample* s : members) own.push_back(*s);
    const FitQuality before = fit_quality(out.calibration, own);
    FamilyCurve f{.cost_class = cls, .family = key.second, .curve = curve_of(c, p), .quality = {}};
    ChipCalibration with = out.calibration;
    with.families.push_back(f);
    f.quality = fit_quality(with, own);
    // Kept where it helps the family's typical op and costs its tail nothing.
    if (f.quality.median_abs_error > before.median_abs_error - kFamilyGain ||
        f.quality.p90_abs_error > before.p90_abs_error)
      continue;
    const std::string name = detail::cat(cost_class_name(cls), " / ", key.second);
    out.notes.push_back(detail::cat(name, ": its own curve (", members.size(), " ops; median |error| ",
                                    fmt(100 * before.median_abs_error), "% on the class's, ",
                                    fmt(100 * f.quality.median_abs_error), "% on its own)"));
    note_beaten(out.notes, name, f.curve);
    out.calibration.families.push_back(std::move(f));
  }
}

}  // namespace

std::string_view curve_origin_name(CurveOrigin o) { return o == CurveOrigin::kFitted ? "fit" : "built-in"; }

void fill_from_same_die(CalibrationFit& own, const CalibrationFit& other) {
  for (int i = 0; i < kCostClassCount; ++i) {
    if (own.classes[i].origin != CurveOrigin::kBuiltIn || other.classes[i].origin != CurveOrigin::kFitted) continue;
    const auto c = static_cast<CostClass>(i);
    own.calibration.curve(c) = other.calibration.curve(c);
    // Per peak class, only the units other's matmuls ran on: for the rest
    // its value is its own spec's, not a measurement.
    if (c == CostClass::kMatmul)
      for (const CalibrationSample& s : other.samples)
        if (s.cost_class == CostClass::kMatmul)
          own.calibration.matmul_math_efficiency[static_cast<int>(s.peak_used)] =
              other.calibration.matmul_math_efficiency[static_cast<int>(s.peak_used)];
    own.classes[i] = other.classes[i];
    if (c == CostClass::kCollective) own.calibration.collective_shape_model = false;
    // Its kernel families' curves go with the class's.
    for (const FamilyCurve& f : other.calibration.families)
      if (f.cost_class == c) own.calibration.families.push_back(f);
    own.notes.push_back(detail::cat(cost_class_name(c), ": ", other.calibration.chip, "'s fit (the same die; ",
                                    other.classes[i].quality.samples, " samples)"));
  }
}

FitQuality fit_quality(const ChipCalibration& calibration, std::span<const CalibrationSample> samples) {
  std::vector<double> e;
  for (const CalibrationSample& s : samples) e.push_back(abs_error(s.measured_s, expected_s(s, calibration)));
  return FitQuality{.samples = static_cast<std::int64_t>(e.size()),
                    .median_abs_error = quantile(e, 0.5),
                    .p90_abs_error = quantile(e, 0.9)};
}

namespace {

// The fit from `builtin`, whose size curves it keeps.
CalibrationFit fit_under(const Chip& chip, std::vector<CalibrationSample> samples, const FitOptions& options,
                         const ChipCalibration& builtin) {
  CalibrationFit out;
  out.calibration = builtin;
  const std::size_t before = samples.size();
  std::erase_if(samples, [&](const CalibrationSample& s) {
    return s.chip != chip.name || !(s.measured_s > 0) || !(roofline_s(s) > 0) || !std::isfinite(roofline_s(s));
  });
  if (samples.size() < before)
    out.notes.push_back(detail::cat(before - samples.size(), " samples of other chips (or with no time) left out"));
  std::sort(samples.begin(), samples.end(), [](const CalibrationSample& a, const CalibrationSample& b) {
    return std::tie(a.trace, a.op, a.measured_s) < std::tie(b.trace, b.op, b.measured_s);
  });
  out.samples = samples;
  std::set<std::string> traces;
  for (const CalibrationSample& s : samples) traces.insert(s.trace);
  if (samples.empty()) {
    out.notes.push_back("no samples: the built-in calibration");
    return out;
  }
  out.calibration.origin = detail::cat("fit to ", samples.size(), " ops of ", traces.size(), " trace",
                                       traces.size() == 1 ? "" : "s", " (roofline calibrate)");

  for (int ci = 0; ci < kCostClassCount; ++ci) {
    const auto cls = static_cast<CostClass>(ci);
    ClassProblem c;
    std::map<PeakClass, int> per_peak;
    for (const CalibrationSample& s : samples)
      if (s.cost_class == cls) c.add(s, builtin), ++per_peak[s.peak_used];
    const std::string name(cost_class_name(cls));
    if (c.samples.empty()) continue;
    if (static_cast<int>(c.samples.size()) < options.min_samples) {
      out.notes.push_back(detail::cat(name, ": ", c.samples.size(), " sample", c.samples.size() == 1 ? "" : "s",
                                      " (fewer than ", options.min_samples, "): built-in curve kept"));
      out.classes[static_cast<std::size_t>(ci)].quality = fit_quality(builtin, [&] {
        std::vector<CalibrationSample> v;
        for (const auto* s : c.samples) v.push_back(*s);
        return v;
      }());
      continue;
    }
    if (cls == CostClass::kMatmul)
      for (const auto& [peak, n] : per_peak)
        if (n >= options.min_samples) c.own_peaks.push_back(peak);
    for (const CalibrationSample* s : c.samples) {
      const auto own = std::find(c.own_peaks.begin(), c.own_peaks.end(), s->peak_used);
      c.math_index.push_back(own == c.own_peaks.end() ? 0 : 1 + static_cast<int>(own - c.own_peaks.begin()));
    }
    // Start 1: the built-in curve. Start 2: the bare roofline.
    const Params from_builtin = start_at(c, builtin.curve(cls), builtin.curve(cls).math_efficiency,
                                         [&](PeakClass peak) { return builtin.math_efficiency(cls, peak); });
    c.reference = from_builtin;
    const Params bare{.floor_s = 0, .inv = std::vector<double>(static_cast<std::size_t>(c.params()), 1)};
    const Params p = fit_best(c, from_builtin, bare, options.min_samples);

    ClassCurve& curve = out.calibration.curve(cls);
    curve = curve_of(c, p);
    if (cls == CostClass::kMatmul) {
      // Peaks fitted with the class's shared efficiency must read it: their
      // built-in per-peak figure would otherwise win (ChipCalibration::math_efficiency).
      for (const auto& [peak, n] : per_peak) out.calibration.matmul_math_efficiency[static_cast<int>(peak)] = 0;
      for (std::size_t j = 0; j < c.own_peaks.size(); ++j)
        out.calibration.matmul_math_efficiency[static_cast<int>(c.own_peaks[j])] = 1 / p.inv[1 + j];
    }
    // Its figures are measured once the families' curves are in place.
    out.classes[static_cast<std::size_t>(ci)] = ClassFit{.origin = CurveOrigin::kFitted, .quality = {}};
    note_beaten(out.notes, name, "math", curve.math_efficiency);
    for (PeakClass peak : c.own_peaks)
      note_beaten(out.notes, name, detail::cat(peak_class_name(peak), " math"),
                  out.calibration.matmul_math_efficiency[static_cast<int>(peak)]);
    note_beaten(out.notes, name, "memory", curve.memory_efficiency);
    note_beaten(out.notes, name, "link", curve.link_efficiency);
  }
  // A collective class fitted times every collective by its curve; one
  // kept built-in keeps the built-in way, the shape model (as a file read
  // back has it: io.cc).
  out.calibration.collective_shape_model =
      builtin.collective_shape_model &&
      out.classes[static_cast<int>(CostClass::kCollective)].origin != CurveOrigin::kFitted;
  fit_families(out, options);
  // The fitted classes' figures, with the families' curves in place.
  for (int ci = 0; ci < kCostClassCount; ++ci) {
    if (out.classes[static_cast<std::size_t>(ci)].origin != CurveOrigin::kFitted) continue;
    std::vector<CalibrationSample> own;
    for (const CalibrationSample& s : out.samples)
      if (static_cast<int>(s.cost_class) == ci) own.push_back(s);
    out.classes[static_cast<std::size_t>(ci)].quality = fit_quality(out.calibration, own);
  }
  // A file that fitted nothing must not be labelled a fit: every class kept
  // the built-in curve, so the figures are the built-in ones.
  if (std::none_of(out.classes.begin(), out.classes.end(),
                   [](const ClassFit& f) { return f.origin == CurveOrigin::kFitted; }))
    out.calibration.origin = detail::cat(builtin.origin, "; roofline calibrate fitted no class (", samples.size(),
                                         " ops, fewer than ", options.min_samples, " in each class)");
  out.calibration.quality = fit_quality(out.calibration, out.samples);
  return out;
}

}  // namespace

CalibrationFit fit_calibration(const Chip& chip, std::vector<CalibrationSample> samples, const FitOptions& options) {
  // A collective read on one rank holds its wait for the slowest peer,
  // which no term of the model times: fitted as a transfer, it would slow
  // the link efficiency by whatever the peers made it wait.
  const auto not_separable = std::erase_if(samples, [](const CalibrationSample& s) { return !s.wait_separable; });
  const auto note_left_out = [&](CalibrationFit& f) {
    if (not_separable > 0)
      f.notes.push_back(detail::cat(not_separable, " collective op", not_separable == 1 ? "" : "s",
                                    " left out: read on one rank, their wait for the slowest peer cannot be told "
                                    "apart from the transfer"));
    return f;
  };
  ChipCalibration builtin = default_calibration(chip);
  CalibrationFit with = fit_under(chip, samples, options, builtin);
  // Whether tile and wave quantization describes these GEMMs better than
  // the size curve is fitted the same way: the better of the two is kept.
  if (builtin.matmul_shape_model == MatmulShapeModel::kTileAndWave && !with.samples.empty()) {
    builtin.matmul_shape_model = MatmulShapeModel::kSizeCurve;
    CalibrationFit curve = fit_under(chip, samples, options, builtin);
    const auto percent = [](double e) { return std::round(e * 1000) / 10; };
    const double e_waves = with.calibration.quality.median_abs_error, e_curve = curve.calibration.quality.median_abs_error;
    if (std::pair(e_curve, curve.calibration.quality.p90_abs_error) <
        std::pair(e_waves, with.calibration.quality.p90_abs_error)) {
      curve.notes.push_back(detail::cat("GEMMs scaled by the size curve: median |error| ", percent(e_curve),
                                        "%, by tile and wave quantization ", percent(e_waves), "%"));
      with = std::move(curve);
    } else {
      builtin.matmul_shape_model = MatmulShapeModel::kTileAndWave;
      with.notes.push_back(detail::cat("GEMMs scaled by tile and wave quantization: median |error| ", percent(e_waves),
                                       "%, by the size curve ", percent(e_curve), "%"));
    }
  }
  if (builtin.matmul_size_steps.empty() && builtin.memory_size_steps.empty()) return note_left_out(with);
  // Whether the size curves describe these ops is itself fitted: the fit
  // without them is kept where it predicts its own samples better (median
  // |error|, then the 90th percentile), as a cross-validation judges it.
  ChipCalibration flat = builtin;
  flat.matmul_size_steps.clear();
  flat.memory_size_steps.clear();
  CalibrationFit without = fit_under(chip, std::move(samples), options, flat);
  const auto score_of = [](const CalibrationFit& f) {
    return std::pair(f.calibration.quality.median_abs_error, f.calibration.quality.p90_abs_error);
  };
  const auto percent = [](double e) { return std::round(e * 1000) / 10; };
  if (with.samples.empty() || !(score_of(without) < score_of(with))) {
    if (!with.samples.empty())
      with.notes.push_back(detail::cat("size curves (Calculon's) kept: median |error| ", percent(with.calibration.quality.median_abs_error),
                                       "% with them, ", percent(without.calibration.quality.median_abs_error), "% without"));
    return note_left_out(with);
  }
  without.notes.push_back(detail::cat("size curves left out: median |error| ", percent(without.calibration.quality.median_abs_error),
                                      "% without them, ", percent(with.calibration.quality.median_abs_error), "% with"));
  return note_left_out(without);
}

}  // namespace roofline
