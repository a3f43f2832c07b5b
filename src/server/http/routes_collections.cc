// /v1/collections: create (admin), list, describe, drop (admin).
#include "server/http/api.h"

namespace engram::server::http {

nlohmann::json CollectionJson(const CollectionInfo& info) {
  const CollectionSpec& spec = info.spec;
  nlohmann::json text = nlohmann::json::array();
  for (const TextFieldSpec& f : spec.text) text.push_back({{"name", f.name}, {"weight", f.weight}});
  nlohmann::json c = {{"name", spec.name},
                      {"records", info.records},
                      {"schema", JsonOrString(spec.schema.ToJson())},
                      {"text", std::move(text)},
                      {"language", spec.language},
                      {"time_field", spec.time_field},
                      {"ttl_field", spec.ttl_field},
                      {"purged", info.purged},
                      {"hit_count_field", spec.hit_count_field},
                      {"last_hit_field", spec.last_hit_field},
                      {"hits_tallied", info.hits_tallied},
                      {"hits_dropped", info.hits_dropped}};
  if (spec.vector_dim > 0) {
    c["vector"] = {
        {"dim", spec.vector_dim}, {"metric", spec.metric}, {"quantization", spec.quantization}};
  }
  if (!spec.graph_fields.empty()) {
    c["graph_fields"] = spec.graph_fields;
    c["graph_min_records"] = spec.graph_min_records;
  }
  if (spec.decay) c["decay"] = DecayText(*spec.decay);
  if (spec.boost) c["boost"] = BoostText(*spec.boost);
  c["dedup"] = DedupText(spec.dedup);
  if (!spec.embedder.empty()) {
    const EmbedderIdentity& id = spec.embedder_identity;
    c["embedder"] = {{"spec", spec.embedder},
                     {"kind", id.kind},
                     {"model", id.model},
                     {"dimension", id.dimension},
                     {"fingerprint", id.fingerprint}};
  }
  if (spec.fusion) c["fusion"] = FusionText(*spec.fusion);
  return c;
}

HttpResponse Api::ListCollections(const Call& call) {
  // Per caller: the collections it may read, with the records it can read.
  nlohmann::json list = nlohmann::json::array();
  for (const CollectionInfo& info : engine_->ListCollections(call.principal.scope()))
    list.push_back(CollectionJson(info));
  return JsonResponse(200, {{"collections", std::move(list)}});
}

HttpResponse Api::CreateCollection(const Call& call) {
  Decoded<CollectionSpec> spec = DecodeCollectionSpec(call.body, options_.limits);
  if (!spec.ok()) return ProblemResponse(spec.problem());
  if (Status s = engine_->CreateCollection(spec.value()); !s.ok()) {
    Problem p = FromStatus(s);
    if (s.code() == StatusCode::kInvalidArgument) p.path = "$";
    return ProblemResponse(p);
  }
  StatusOr<CollectionInfo> info = engine_->DescribeCollection(spec.value().name);
  if (!info.ok()) return ProblemResponse(FromStatus(info.status()));
  HttpResponse r = JsonResponse(201, CollectionJson(*info));
  r.headers.emplace_back("Location", "/v1/collections/" + spec.value().name);
  return WithLatestToken(std::move(r));
}

HttpResponse Api::GetCollection(const Call& call) {
  StatusOr<CollectionInfo> info =
      engine_->DescribeCollection(call.match.name, call.principal.scope());
  if (!info.ok()) return ProblemResponse(FromStatus(info.status()));
  return JsonResponse(200, CollectionJson(*info));
}

// Synchronous: the reply comes once the new vectors have taken over (the
// collection serves searches with the old ones meanwhile).
HttpResponse Api::ReembedCollection(const Call& call) {
  Decoded<EmbedderSpec> spec = DecodeReembed(call.body, options_.limits);
  if (!spec.ok()) return ProblemResponse(spec.problem());
  StatusOr<Engine::ReembedReport> report = engine_->Reembed(call.match.name, spec.value());
  if (!report.ok()) {
    Problem p = FromStatus(report.status());
    if (report.status().code() == StatusCode::kInvalidArgument) p.path = "$.embedder";
    return ProblemResponse(p);
  }
  StatusOr<CollectionInfo> info = engine_->DescribeCollection(call.match.name);
  if (!info.ok()) return ProblemResponse(FromStatus(info.status()));
  nlohmann::json body = CollectionJson(*info);
  body["reembedded"] = {
      {"records", report->records}, {"caught_up", report->caught_up}, {"seconds", report->seconds}};
  return WithLatestToken(JsonResponse(200, body));
}

HttpResponse Api::DropCollection(const Call& call) {
  if (Status s = engine_->DropCollection(call.match.name); !s.ok()) {
    return ProblemResponse(FromStatus(s));
  }
  return WithLatestToken(JsonResponse(200, {{"ok", true}, {"dropped", call.match.name}}));
}

}  // namespace engram::server::http
