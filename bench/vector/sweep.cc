#include "sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include <fmt/core.h>

namespace engram::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string Notes(const std::map<std::string, std::size_t, std::less<>>& counts) {
  std::string out;
  for (const auto& [note, count] : counts) {
    if (note.empty()) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", note, count);
  }
  return out;
}

}  // namespace

std::vector<Point> RunCase(const CaseView& view, const std::vector<std::vector<Hit>>& truth,
                           std::vector<Variant>& variants, const SweepOptions& options) {
  const Dataset& d = *view.data;
  const std::size_t nq = d.nq();
  const bool unfiltered = view.spec.correlation == Correlation::kNone;
  double mean_allowed = static_cast<double>(d.n());
  if (!unfiltered) {
    double sum = 0;
    for (std::size_t q = 0; q < nq; ++q) sum += static_cast<double>(view.Allowed(q)->cardinality());
    mean_allowed = sum / static_cast<double>(nq);
  }
  std::vector<Point> points;
  std::vector<std::uint32_t> out;
  for (Variant& v : variants) {
    if ((!v.filtered && !unfiltered) || (v.filters_only && unfiltered)) continue;
    if (v.prepare) v.prepare(view);
    std::size_t same_in_a_row = 0;
    for (std::size_t ef : v.sweep) {
      if (v.set_ef) v.set_ef(ef);
      Point p;
      p.dataset = d.name;
      p.filter = view.spec.Name();
      p.system = v.system;
      p.mode = v.mode;
      p.spec = view.spec;
      p.ef = ef;
      p.mean_allowed = mean_allowed;
      p.queries = nq;
      std::map<std::string, std::size_t, std::less<>> notes;
      double sum = 0;
      p.min_recall = 1;
      auto t0 = Clock::now();
      const double c0 = ThreadCpuSeconds();
      for (std::size_t q = 0; q < nq; ++q) {
        out.clear();
        std::string_view note = v.search(q, &out, true);
        double r = Recall(d, q, out, truth[q], options.k, view.Allowed(q), &p.disallowed);
        sum += r;
        p.min_recall = std::min(p.min_recall, r);
        if (!note.empty()) {
          auto it = notes.find(note);
          if (it == notes.end()) it = notes.emplace(std::string(note), 0).first;
          ++it->second;
        }
      }
      const double first = Since(t0);
      const double first_cpu = ThreadCpuSeconds() - c0;
      p.recall = sum / static_cast<double>(nq);
      p.notes = Notes(notes);
      // Timed passes: the first pass (with the recall bookkeeping) was the
      // warm-up unless it alone was long enough to time.
      double timed = 0, timed_cpu = 0;
      std::size_t passes = 0;
      if (first >= options.min_seconds) {
        timed = first;
        timed_cpu = first_cpu;
        passes = 1;
      } else {
        while (passes < options.max_passes &&
               (options.cpu_clock ? timed_cpu : timed) < options.min_seconds) {
          auto t1 = Clock::now();
          const double c1 = ThreadCpuSeconds();
          for (std::size_t q = 0; q < nq; ++q) {
            out.clear();
            (void)v.search(q, &out, false);
          }
          timed += Since(t1);
          timed_cpu += ThreadCpuSeconds() - c1;
          ++passes;
        }
      }
      p.qps_wall = static_cast<double>(nq * passes) / timed;
      p.qps = options.cpu_clock ? static_cast<double>(nq * passes) / timed_cpu : p.qps_wall;
      points.push_back(p);
      fmt::print(
          stderr,
          "  {} {} {:<34} ef {:>4}: recall {:.4f} (min {:.2f}) {:>10.0f} QPS (wall {:.0f}){}{}\n",
          d.name, view.spec.Name(), v.Label(), ef, p.recall, p.min_recall, p.qps, p.qps_wall,
          p.notes.empty() ? "" : "  [" + p.notes + "]",
          p.disallowed ? fmt::format("  {} DISALLOWED returned", p.disallowed) : "");
      if (v.stop_at_full_recall && p.recall >= 1.0) break;
      const auto all = notes.find(v.stop_when_all);
      const bool all_same = !v.stop_when_all.empty() && notes.size() == 1 && all != notes.end();
      same_in_a_row = ef > 0 && all_same ? same_in_a_row + 1 : 0;
      if (same_in_a_row >= 2) break;
      if (1000.0 / p.qps > options.max_ms_per_query) break;
    }
  }
  return points;
}

const Point* BestAtRecall(const std::vector<Point>& points, const std::string& system,
                          const std::string& mode, double recall) {
  const Point* best = nullptr;
  for (const Point& p : points) {
    if (p.system != system || p.mode != mode || p.recall < recall) continue;
    if (best == nullptr || p.qps > best->qps) best = &p;
  }
  return best;
}

const Point* BestRecall(const std::vector<Point>& points, const std::string& system,
                        const std::string& mode) {
  const Point* best = nullptr;
  for (const Point& p : points) {
    if (p.system != system || p.mode != mode) continue;
    if (best == nullptr || p.recall > best->recall ||
        (p.recall == best->recall && p.qps > best->qps)) {
      best = &p;
    }
  }
  return best;
}

std::vector<Interleaved> RunInterleaved(const CaseView& view, std::vector<Variant>& variants,
                                        const std::vector<Point>& points, double recall,
                                        std::size_t rounds, const SweepOptions& options) {
  std::vector<Interleaved> rows;
  std::vector<Variant*> timed;
  for (Variant& v : variants) {
    if (const Point* p = BestAtRecall(points, v.system, v.mode, recall)) {
      rows.push_back({*p, {}});
      timed.push_back(&v);
    }
  }
  const std::size_t nq = view.data->nq();
  std::vector<std::uint32_t> out;
  for (std::size_t round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < timed.size(); ++i) {
      const std::size_t at = (i + round) % timed.size();
      Variant& v = *timed[at];
      if (v.prepare) v.prepare(view);
      if (v.set_ef) v.set_ef(rows[at].point.ef);
      double seconds = 0;
      std::size_t passes = 0;
      while (passes < options.max_passes && seconds < options.min_seconds) {
        auto t0 = Clock::now();
        const double c0 = ThreadCpuSeconds();
        for (std::size_t q = 0; q < nq; ++q) {
          out.clear();
          (void)v.search(q, &out, false);
        }
        seconds += options.cpu_clock ? ThreadCpuSeconds() - c0 : Since(t0);
        ++passes;
      }
      rows[at].qps.push_back(static_cast<double>(nq * passes) / seconds);
    }
  }
  return rows;
}

std::string InterleavedTable(const std::vector<Interleaved>& rows, const std::string& reference) {
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  const Interleaved* ref = nullptr;
  for (const Interleaved& r : rows) {
    if (r.point.system + (r.point.mode.empty() ? "" : " " + r.point.mode) == reference) ref = &r;
  }
  std::string out = fmt::format(
      "| variant | ef | recall | QPS, median of {} rounds | / {}: median (min-max) |\n"
      "|---|---:|---:|---:|---|\n",
      rows.empty() ? 0 : rows[0].qps.size(), reference);
  for (const Interleaved& r : rows) {
    std::string ratio = "–";
    if (ref != nullptr && &r != ref) {
      std::vector<double> ratios;
      for (std::size_t i = 0; i < r.qps.size(); ++i) ratios.push_back(r.qps[i] / ref->qps[i]);
      const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
      ratio = fmt::format("{:.2f}x ({:.2f}-{:.2f})", median(ratios), *lo, *hi);
    }
    out += fmt::format("| {} {} | {} | {:.3f} | {:.0f} | {} |\n", r.point.system, r.point.mode,
                       r.point.ef, r.point.recall, median(r.qps), ratio);
  }
  return out;
}

}  // namespace engram::bench
