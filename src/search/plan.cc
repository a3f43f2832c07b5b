// PlanSearch: a search request's checks, and the plan search.cc runs.
#include "search/plan.h"

#include <cmath>
#include <string>
#include <utility>

#include "base/json.h"
#include "base/status.h"
#include "search/fusion.h"

namespace engram::search {
namespace {

constexpr std::string_view kAutoReason =
    "auto chose pre: the allowed-set from the metadata indexes is passed into retrieval, so the "
    "top k are the true best k among the allowed records at every selectivity (the vector "
    "planner picks an exact scan or a graph walk from its size)";
constexpr std::string_view kPreReason = "pre: requested";
constexpr std::string_view kPostReason =
    "post: requested (seed 004's mode: the filter drops candidates generated without it, so "
    "fewer than k may remain)";

Status Invalid(std::string message) {
  return Status::InvalidArgument(std::move(message));
}

Status ValidateRanking(const index::MetadataIndex& metadata, const Ranking& ranking) {
  const Schema& schema = metadata.schema();
  if (const std::optional<Decay>& d = ranking.decay) {
    if (d->slot >= schema.fields().size() || schema.field(d->slot).type != FieldType::kDatetime) {
      return Invalid("decay: the field must be a datetime field of the schema");
    }
    if (!std::isfinite(d->scale_micros) || d->scale_micros <= 0) {
      return Invalid("decay: scale must be a positive duration");
    }
    if (!std::isfinite(d->offset_micros) || d->offset_micros < 0) {
      return Invalid("decay: offset must be a duration >= 0");
    }
    if (!(d->floor >= 0 && d->floor <= 1)) {
      return Invalid("decay: floor must be within [0, 1], got " + json::Dump(d->floor));
    }
  }
  if (const std::optional<Boost>& b = ranking.boost) {
    if (b->slot >= schema.fields().size() || (schema.field(b->slot).type != FieldType::kInt &&
                                              schema.field(b->slot).type != FieldType::kFloat)) {
      return Invalid("boost: the field must be an int or float field of the schema");
    }
    if (!std::isfinite(b->weight) || b->weight < 0) {
      return Invalid("boost: weight must be a finite number >= 0, got " + json::Dump(b->weight));
    }
  }
  return Status::Ok();
}

}  // namespace

Status PlanSearch(const CollectionView& c, const Request& r, Plan* plan) {
  if (c.metadata == nullptr) return Invalid("collection: no metadata index");
  if (r.k < 1 || r.k > kMaxK) {
    return Invalid("k: must be between 1 and " + std::to_string(kMaxK) + ", got " +
                   std::to_string(r.k));
  }
  if (r.candidate_k && (*r.candidate_k < 1 || *r.candidate_k > kMaxCandidateK)) {
    return Invalid("candidate_k: must be between 1 and " + std::to_string(kMaxCandidateK) +
                   ", got " + std::to_string(*r.candidate_k));
  }
  const bool has_query = r.query.has_value();
  const bool has_vector = !r.vector.empty();
  if (has_vector) {
    if (c.vectors == nullptr) return Invalid("vector: the collection has no vectors");
    const std::size_t dim = c.vectors->store().dim();
    if (r.vector.size() != dim) {
      return Invalid("vector: expected " + std::to_string(dim) + " numbers, got " +
                     std::to_string(r.vector.size()));
    }
  }
  if (c.vectors != nullptr) plan->metric = c.vectors->store().metric();
  switch (r.mode) {
    case Mode::kText:
      if (c.text == nullptr) return Invalid("query: the collection has no text fields");
      if (!has_query) return Invalid("query: mode text needs a query");
      plan->text = true;
      break;
    case Mode::kVector:
      if (c.vectors == nullptr) return Invalid("vector: the collection has no vectors");
      if (!has_vector) return Invalid("vector: mode vector needs a query vector");
      plan->vector = true;
      break;
    case Mode::kHybrid:
      if (has_query && c.text == nullptr) {
        return Invalid("query: the collection has no text fields");
      }
      if (!has_query && !has_vector) return Invalid("query: mode hybrid needs a query or a vector");
      plan->text = has_query;
      plan->vector = has_vector;
      if (!has_vector) plan->fallback = "hybrid without a vector: the text retriever alone";
      if (!has_query) plan->fallback = "hybrid without a query: the vector retriever alone";
      break;
  }
  if (r.threshold) {
    if (!std::isfinite(*r.threshold) || *r.threshold < 0) {
      return Invalid("threshold: must be a finite distance >= 0, got " + json::Dump(*r.threshold));
    }
    if (c.vectors == nullptr) return Invalid("threshold: the collection has no vectors");
    if (plan->metric == vector::Metric::kDot) {
      return Invalid("threshold: a distance threshold is not defined for the dot metric");
    }
    if (!has_vector) return Invalid("threshold: needs a query vector (the distance is to it)");
  }
  if (r.score_threshold && !(*r.score_threshold >= 0 && *r.score_threshold <= 1)) {
    return Invalid("score_threshold: must be within [0, 1], got " + json::Dump(*r.score_threshold));
  }
  RETURN_IF_ERROR(ValidateRanking(*c.metadata, r.ranking));
  RETURN_IF_ERROR(CheckFusion(r.fusion));
  switch (r.filter_mode) {
    case FilterMode::kAuto:
      plan->filter_mode = FilterMode::kPre;
      plan->filter_mode_reason = kAutoReason;
      break;
    case FilterMode::kPre:
      plan->filter_mode = FilterMode::kPre;
      plan->filter_mode_reason = kPreReason;
      break;
    case FilterMode::kPost:
      plan->filter_mode = FilterMode::kPost;
      plan->filter_mode_reason = kPostReason;
      break;
  }
  return Status::Ok();
}

}  // namespace engram::search
