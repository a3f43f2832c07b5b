#include "search/temporal.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <variant>

namespace engram::search {
namespace {

constexpr double kMicrosPerDay = 86400.0 * 1e6;

std::optional<Datetime> TimeOf(const index::MetadataIndex& metadata, std::uint32_t doc,
                               std::uint32_t slot) {
  const std::vector<Value>* row = metadata.Row(doc);
  if (row == nullptr || slot >= row->size()) return std::nullopt;
  if (const Datetime* t = std::get_if<Datetime>(&(*row)[slot])) return *t;
  return std::nullopt;
}

}  // namespace

double AroundCloseness(Datetime t, const text::Date& day) {
  const double start = static_cast<double>(text::DaysFromCivil(day)) * kMicrosPerDay;
  const double end = start + kMicrosPerDay;
  const double at = static_cast<double>(t.micros);
  double days = 0;
  if (at < start) days = (start - at) / kMicrosPerDay;
  if (at >= end) days = (at - end) / kMicrosPerDay;
  return std::exp2(-days / kAroundHalfLifeDays);
}

json::Value ApplyTemporalHints(const std::vector<text::TemporalHint>& hints,
                               const index::MetadataIndex& metadata, std::uint32_t time_slot,
                               bool fused, std::size_t rrf_k, std::vector<Hit>* hits) {
  std::vector<text::Date> around;
  std::optional<int> ordinal;
  json::Value hint_json = json::Value::array();
  for (const text::TemporalHint& h : hints) {
    json::Value j = json::Value::object();
    if (h.kind == text::TemporalHint::Kind::kAround) {
      around.push_back(h.around);
      j["around"] = text::FormatDate(h.around);
    } else {
      ordinal = h.ordinal;
      j["ordinal"] = h.ordinal;
    }
    hint_json.push_back(std::move(j));
  }
  json::Value out = json::Value::object();
  out["time_field"] = metadata.schema().field(time_slot).name;
  out["hints"] = std::move(hint_json);
  out["boosted"] = 0;
  out["ordinal"] = ordinal ? json::Value(*ordinal) : json::Value(nullptr);
  if (hints.empty() || hits->empty()) return out;

  struct Keyed {
    Hit hit;
    double key;
    std::optional<Datetime> time;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(hits->size());
  for (std::size_t i = 0; i < hits->size(); ++i) {
    Hit& h = (*hits)[i];
    const double key = fused ? h.score : 1.0 / static_cast<double>(rrf_k + i + 1);
    std::optional<Datetime> time = TimeOf(metadata, h.doc, time_slot);
    keyed.push_back({std::move(h), key, time});
  }
  if (!around.empty()) {
    std::size_t boosted = 0;
    for (Keyed& k : keyed) {
      double w = 0;
      if (k.time) {
        for (const text::Date& d : around) w = std::max(w, AroundCloseness(*k.time, d));
      }
      k.hit.boost = 1.0 + w;
      k.key *= 1.0 + w;
      if (w > 0) ++boosted;
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const Keyed& a, const Keyed& b) { return a.key > b.key; });
    out["boosted"] = boosted;
  }
  if (ordinal) {
    const bool earliest = *ordinal > 0;
    std::stable_sort(keyed.begin(), keyed.end(), [earliest](const Keyed& a, const Keyed& b) {
      if (!a.time || !b.time) return a.time.has_value() && !b.time.has_value();
      return earliest ? *a.time < *b.time : *a.time > *b.time;
    });
  }
  for (std::size_t i = 0; i < keyed.size(); ++i) (*hits)[i] = std::move(keyed[i].hit);
  return out;
}

}  // namespace engram::search
