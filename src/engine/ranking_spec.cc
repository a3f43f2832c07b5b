// Ranking specs (engine.h, DecaySpec): the text forms of the CLI and the
// HTTP API, and their resolution against a collection's schema into the
// search layer's Ranking.
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "engine/collection.h"
#include "engine/ranking.h"

namespace engram {
namespace {

std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

std::optional<double> Number(std::string_view text) {
  double x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x)) {
    return std::nullopt;
  }
  return x;
}

// About 19,000 years: any datetime's distance fits (FILTERS.md: years 0000-9999).
constexpr double kMaxSeconds = 1e6 * 7 * 86400;

// "30d", "1.5h": a number >= 0 and a unit of s, m, h, d or w; in seconds.
std::optional<double> Duration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  double unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    case 'w':
      unit = 7 * 86400;
      break;
    default:
      return std::nullopt;
  }
  const std::optional<double> n = Number(text.substr(0, text.size() - 1));
  if (!n || *n < 0 || *n * unit > kMaxSeconds) return std::nullopt;
  return *n * unit;
}

}  // namespace

StatusOr<DecaySpec> ParseDecay(std::string_view text) {
  if (text == "off") return DecaySpec{};
  const std::vector<std::string_view> parts = SplitColons(text);
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument("decay: " + what + " in '" + std::string(text) +
                                   "' (expected FIELD:exp|gauss|linear:SCALE[:OFFSET[:FLOOR]] "
                                   "or off)");
  };
  if (parts.size() < 3 || parts.size() > 5) return bad("3 to 5 parts separated by ':'");
  DecaySpec spec;
  if (parts[0].empty()) return bad("an empty field");
  spec.field = std::string(parts[0]);
  if (parts[1] == "exp") {
    spec.function = DecayFunction::kExp;
  } else if (parts[1] == "gauss") {
    spec.function = DecayFunction::kGauss;
  } else if (parts[1] == "linear") {
    spec.function = DecayFunction::kLinear;
  } else {
    return bad("unknown function '" + std::string(parts[1]) + "'");
  }
  const std::optional<double> scale = Duration(parts[2]);
  if (!scale || *scale <= 0) {
    return bad("scale '" + std::string(parts[2]) + "' is not a positive duration (30d, 12h, ...)");
  }
  spec.scale_seconds = *scale;
  if (parts.size() > 3 && !parts[3].empty()) {
    const std::optional<double> offset = Duration(parts[3]);
    if (!offset) return bad("offset '" + std::string(parts[3]) + "' is not a duration");
    spec.offset_seconds = *offset;
  }
  if (parts.size() > 4) {
    const std::optional<double> floor = Number(parts[4]);
    if (!floor || *floor < 0 || *floor > 1) {
      return bad("floor '" + std::string(parts[4]) + "' is not a number within [0, 1]");
    }
    spec.floor = *floor;
  }
  return spec;
}

StatusOr<BoostSpec> ParseBoost(std::string_view text) {
  if (text == "off") return BoostSpec{};
  const std::vector<std::string_view> parts = SplitColons(text);
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument("boost: " + what + " in '" + std::string(text) +
                                   "' (expected FIELD[:WEIGHT] or off)");
  };
  if (parts.size() > 2) return bad("at most 2 parts separated by ':'");
  if (parts[0].empty()) return bad("an empty field");
  BoostSpec spec;
  spec.field = std::string(parts[0]);
  if (parts.size() == 2) {
    const std::optional<double> weight = Number(parts[1]);
    if (!weight || *weight < 0 || *weight > 1e6) {
      return bad("weight '" + std::string(parts[1]) + "' is not a number within [0, 1e6]");
    }
    spec.weight = *weight;
  }
  return spec;
}

std::string DecayText(const DecaySpec& decay) {
  if (decay.field.empty()) return "off";
  return decay.field + ":" +
         std::string(search::DecayFunctionName(engine::ToInternal(decay.function))) + ":" +
         json::Dump(decay.scale_seconds) + "s:" + json::Dump(decay.offset_seconds) +
         "s:" + json::Dump(decay.floor);
}

std::string BoostText(const BoostSpec& boost) {
  if (boost.field.empty()) return "off";
  return boost.field + ":" + json::Dump(boost.weight);
}

namespace engine {

search::DecayFunction ToInternal(DecayFunction function) {
  switch (function) {
    case DecayFunction::kExp:
      return search::DecayFunction::kExp;
    case DecayFunction::kGauss:
      return search::DecayFunction::kGauss;
    case DecayFunction::kLinear:
      return search::DecayFunction::kLinear;
  }
  return search::DecayFunction::kExp;
}

Checked<search::Ranking> ResolveRanking(const Schema& schema, const std::optional<DecaySpec>& decay,
                                        const std::optional<BoostSpec>& boost, Datetime now) {
  search::Ranking ranking;
  if (decay && !decay->field.empty()) {
    const Field* f = schema.Find(decay->field);
    if (f == nullptr || f->type != FieldType::kDatetime) {
      return Diagnostic{400, "request.invalid", "decay",
                        "decay: '" + decay->field + "' is not a datetime field of the schema"};
    }
    search::Decay d;
    d.slot = f->slot;
    d.function = ToInternal(decay->function);
    d.scale_micros = decay->scale_seconds * 1e6;
    d.offset_micros = decay->offset_seconds * 1e6;
    d.floor = decay->floor;
    d.origin = now;
    ranking.decay = d;
  }
  if (boost && !boost->field.empty()) {
    const Field* f = schema.Find(boost->field);
    if (f == nullptr || (f->type != FieldType::kInt && f->type != FieldType::kFloat)) {
      return Diagnostic{400, "request.invalid", "boost",
                        "boost: '" + boost->field + "' is not an int or float field of the schema"};
    }
    ranking.boost = search::Boost{f->slot, boost->weight};
  }
  return ranking;
}

}  // namespace engine
}  // namespace engram
