// A collection's configuration: validation (SEARCH.md §1) and the JSON
// document the store keeps for it.
#include <cmath>
#include <string>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/internal.h"
#include "engine/ranking.h"
#include "vector/metric.h"
#include "vector/vector_store.h"

namespace engram::engine {
namespace {

bool ValidName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

// A hit field (CollectionSpec::hit_count_field, last_hit_field): empty, or
// a field of `type` that hits may change: not the record time, not the TTL.
Status ValidateHitField(const CollectionSpec& spec, const std::string& what,
                        const std::string& name, FieldType type) {
  if (name.empty()) return Status::Ok();
  const Field* f = spec.schema.get()->Find(name);
  if (!f || f->type != type) {
    return Status::InvalidArgument(what + ": '" + name + "' is not " +
                                   (type == FieldType::kInt ? "an int" : "a datetime") +
                                   " field of the schema");
  }
  if (name == spec.time_field || name == spec.ttl_field) {
    return Status::InvalidArgument(what + ": '" + name + "' is the collection's " +
                                   (name == spec.time_field ? "time_field" : "ttl_field") +
                                   "; hits must not change it");
  }
  return Status::Ok();
}

// CollectionSpec::graph_fields: distinct filterable string, bool or
// set<string> fields of the schema, in a collection with vectors.
Status ValidateGraphFields(const CollectionSpec& spec) {
  if (spec.graph_fields.empty()) return Status::Ok();
  if (spec.vector_dim == 0 && spec.embedder.empty()) {
    return Status::InvalidArgument("graph_fields: the collection has no vectors");
  }
  if (spec.graph_min_records < 16 || spec.graph_min_records > (std::size_t{1} << 31)) {
    return Status::InvalidArgument("graph_min_records: expected 16 to 2^31, got " +
                                   std::to_string(spec.graph_min_records));
  }
  if (spec.graph_fields.size() > kMaxGraphFields) {
    return Status::InvalidArgument("graph_fields: at most " + std::to_string(kMaxGraphFields) +
                                   " fields, got " + std::to_string(spec.graph_fields.size()));
  }
  for (std::size_t i = 0; i < spec.graph_fields.size(); ++i) {
    const std::string& name = spec.graph_fields[i];
    const std::string at = "graph_fields[" + std::to_string(i) + "]: '" + name + "' ";
    const Field* f = spec.schema.get()->Find(name);
    if (f == nullptr) return Status::InvalidArgument(at + "is not a field of the schema");
    if (f->type != FieldType::kString && f->type != FieldType::kBool &&
        f->type != FieldType::kStringSet) {
      return Status::InvalidArgument(at + "is a " + std::string(FieldTypeName(f->type)) +
                                     " field; graph fields are string, bool or set<string>");
    }
    if (!f->filterable) return Status::InvalidArgument(at + "is not filterable");
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.graph_fields[j] == name) return Status::InvalidArgument(at + "is named twice");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateSpec(const CollectionSpec& spec) {
  if (!ValidName(spec.name)) {
    return Status::InvalidArgument("name: '" + spec.name +
                                   "' is not a collection name (1-64 of A-Z a-z 0-9 _ . -, "
                                   "not starting with '.')");
  }
  if (spec.text.empty() && spec.vector_dim == 0) {
    return Status::InvalidArgument(
        "a collection needs text fields, vectors, or both (--text, --vectors)");
  }
  const Schema& schema = *spec.schema.get();
  for (std::size_t i = 0; i < spec.text.size(); ++i) {
    const TextFieldSpec& f = spec.text[i];
    const std::string where = "text[" + std::to_string(i) + "]";
    if (f.name.empty() || f.name == "id" || f.name == "vector") {
      return Status::InvalidArgument(where + ": '" + f.name + "' cannot be a text field");
    }
    if (!std::isfinite(f.weight) || f.weight <= 0 || f.weight > 1000) {
      return Status::InvalidArgument(where + ": weight of '" + f.name +
                                     "' must be a number in (0, 1000]");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (spec.text[j].name == f.name) {
        return Status::InvalidArgument(where + ": '" + f.name + "' is named twice");
      }
    }
    if (const Field* declared = schema.Find(f.name);
        declared && declared->type != FieldType::kString) {
      return Status::InvalidArgument(where + ": '" + f.name + "' is declared " +
                                     std::string(FieldTypeName(declared->type)) +
                                     " in the schema; a text field must be a string");
    }
  }
  if (spec.text.size() > 16) return Status::InvalidArgument("text: at most 16 text fields");
  if (spec.vector_dim > vector::VectorStore::kMaxDim) {
    return Status::InvalidArgument("vectors: dimension " + std::to_string(spec.vector_dim) +
                                   " is larger than " +
                                   std::to_string(vector::VectorStore::kMaxDim));
  }
  if (spec.quantization != "none" && spec.quantization != "int8") {
    return Status::InvalidArgument("vectors: unknown quantization '" + spec.quantization +
                                   "' (none, int8)");
  }
  if (spec.quantization != "none" && spec.vector_dim == 0 && spec.embedder.empty()) {
    return Status::InvalidArgument("vectors: quantization '" + spec.quantization +
                                   "' in a collection without vectors");
  }
  if (spec.vector_dim > 0 && !vector::TryParseMetric(spec.metric)) {
    return Status::InvalidArgument("vectors: unknown metric '" + spec.metric +
                                   "' (expected cosine, dot or l2)");
  }
  if (spec.language != "en" && spec.language != "nl" && spec.language != "none") {
    return Status::InvalidArgument("language: '" + spec.language + "' is not one of en, nl, none");
  }
  if (!spec.time_field.empty()) {
    const Field* f = schema.Find(spec.time_field);
    if (!f || f->type != FieldType::kDatetime) {
      return Status::InvalidArgument("time_field: '" + spec.time_field +
                                     "' is not a datetime field of the schema");
    }
  }
  if (!spec.ttl_field.empty()) {
    const Field* f = schema.Find(spec.ttl_field);
    if (!f || f->type != FieldType::kDatetime) {
      return Status::InvalidArgument("ttl_field: '" + spec.ttl_field +
                                     "' is not a datetime field of the schema");
    }
  }
  if (spec.dedup.mode != DedupMode::kOff && spec.dedup.action == DedupAction::kRefresh &&
      spec.time_field.empty()) {
    return Status::InvalidArgument(
        "dedup: refresh sets the record time; the collection has no time_field (--time-field)");
  }
  RETURN_IF_ERROR(ValidateHitField(spec, "hit_count_field", spec.hit_count_field, FieldType::kInt));
  RETURN_IF_ERROR(
      ValidateHitField(spec, "last_hit_field", spec.last_hit_field, FieldType::kDatetime));
  if (!spec.hit_count_field.empty() && spec.hit_count_field == spec.last_hit_field) {
    return Status::InvalidArgument("last_hit_field: '" + spec.last_hit_field +
                                   "' is the hit_count_field too");
  }
  RETURN_IF_ERROR(ValidateGraphFields(spec));
  switch (spec.dedup.mode) {
    case DedupMode::kOff:
      break;
    case DedupMode::kExact:
      if (spec.text.empty()) {
        return Status::InvalidArgument(
            "dedup: exact compares text fields; the collection has none");
      }
      break;
    case DedupMode::kNear: {
      if (spec.vector_dim == 0) {
        return Status::InvalidArgument("dedup: near compares vectors; the collection has none");
      }
      const double t = spec.dedup.threshold;
      if (!std::isfinite(t) || (spec.metric != "dot" && !(t > 0 && t <= 1))) {
        return Status::InvalidArgument("dedup: the near threshold must be within (0, 1] for the " +
                                       spec.metric + " metric, got " + json::Value(t).dump());
      }
      break;
    }
  }
  // The ranking defaults: their fields and numbers, as a search checks them.
  const Datetime epoch;
  Checked<search::Ranking> ranking = ResolveRanking(schema, spec.decay, spec.boost, epoch);
  if (!ranking.ok()) return Status::InvalidArgument(ranking.diagnostic().message);
  if (spec.decay && !spec.decay->field.empty()) {
    if (Status s = ParseDecay(DecayText(*spec.decay)).status(); !s.ok()) return s;
  }
  if (spec.boost && !spec.boost->field.empty()) {
    if (Status s = ParseBoost(BoostText(*spec.boost)).status(); !s.ok()) return s;
  }
  if (!spec.embedder.empty()) {
    if (spec.text.empty()) {
      return Status::InvalidArgument("embedder: the collection needs text fields to embed");
    }
    if (spec.vector_dim != spec.embedder_identity.dimension) {
      return Status::InvalidArgument("vectors: dimension " + std::to_string(spec.vector_dim) +
                                     " is not the embedder's (" +
                                     std::to_string(spec.embedder_identity.dimension) + ")");
    }
  }
  if (spec.fusion) {
    if (Status s = ToInternal(*spec.fusion).status(); !s.ok()) return s;
  }
  return Status::Ok();
}

json::Value SpecToJson(const CollectionSpec& spec) {
  json::Value text = json::Value::array();
  for (const TextFieldSpec& f : spec.text) text.push_back({{"name", f.name}, {"weight", f.weight}});
  json::Value doc = {{"version", 1},
                     {"name", spec.name},
                     {"schema", spec.schema.get()->ToJson()},
                     {"text", std::move(text)},
                     {"vector_dim", spec.vector_dim},
                     {"metric", spec.metric},
                     {"language", spec.language},
                     {"time_field", spec.time_field},
                     {"ttl_field", spec.ttl_field}};
  if (spec.decay) doc["decay"] = DecayText(*spec.decay);
  if (spec.boost) doc["boost"] = BoostText(*spec.boost);
  if (spec.dedup.mode != DedupMode::kOff) doc["dedup"] = DedupText(spec.dedup);
  if (!spec.hit_count_field.empty()) doc["hit_count_field"] = spec.hit_count_field;
  if (!spec.last_hit_field.empty()) doc["last_hit_field"] = spec.last_hit_field;
  if (!spec.graph_fields.empty()) {
    doc["graph_fields"] = spec.graph_fields;
    doc["graph_min_records"] = spec.graph_min_records;
  }
  if (spec.quantization != "none") doc["quantization"] = spec.quantization;
  if (!spec.embedder.empty()) {
    const EmbedderIdentity& id = spec.embedder_identity;
    doc["embedder"] = {{"spec", spec.embedder},
                       {"kind", id.kind},
                       {"model", id.model},
                       {"dimension", id.dimension},
                       {"fingerprint", id.fingerprint}};
  }
  if (spec.fusion) doc["fusion"] = FusionText(*spec.fusion);
  return doc;
}

StatusOr<CollectionSpec> SpecFromJson(std::string_view config) {
  json::ReadOptions options;
  options.max_bytes = 0;
  json::ReadResult read = json::Read(config, options);
  auto corrupt = [](const std::string& what) {
    return Status::Corruption("collection configuration: " + what);
  };
  if (!read.ok() || !read.value.is_object()) return corrupt("not a JSON object");
  const json::Value& doc = read.value;
  try {
    if (json::GetCount(doc.at("version")) != 1) return corrupt("unknown version");
    Checked<SchemaRef> schema = SchemaRef::Parse(json::Dump(doc.at("schema")));
    if (!schema.ok()) return corrupt(schema.diagnostic().message);
    CollectionSpec spec{doc.at("name").get<std::string>(), schema.value(), {}, 0, "", "", ""};
    for (const json::Value& f : doc.at("text")) {
      spec.text.push_back({f.at("name").get<std::string>(), f.at("weight").get<double>()});
    }
    spec.vector_dim = json::GetCount(doc.at("vector_dim"));
    spec.metric = doc.at("metric").get<std::string>();
    spec.language = doc.at("language").get<std::string>();
    spec.time_field = doc.at("time_field").get<std::string>();
    // Stores written before expiry existed have no ttl_field: none.
    if (auto ttl = doc.find("ttl_field"); ttl != doc.end())
      spec.ttl_field = ttl->get<std::string>();
    // Added after version 1 was first written: absent in older stores.
    if (auto it = doc.find("decay"); it != doc.end()) {
      StatusOr<DecaySpec> decay = ParseDecay(it->get<std::string>());
      if (!decay.ok()) return corrupt(decay.status().message());
      spec.decay = *decay;
    }
    if (auto it = doc.find("dedup"); it != doc.end()) {
      StatusOr<DedupSpec> dedup = ParseDedup(it->get<std::string>());
      if (!dedup.ok()) return corrupt(dedup.status().message());
      spec.dedup = *dedup;
    }
    if (auto it = doc.find("hit_count_field"); it != doc.end()) {
      spec.hit_count_field = it->get<std::string>();
    }
    if (auto it = doc.find("last_hit_field"); it != doc.end()) {
      spec.last_hit_field = it->get<std::string>();
    }
    if (auto it = doc.find("graph_fields"); it != doc.end()) {
      for (const json::Value& f : *it) spec.graph_fields.push_back(f.get<std::string>());
      spec.graph_min_records = json::GetCount(doc.at("graph_min_records"));
    }
    if (auto it = doc.find("quantization"); it != doc.end()) {
      spec.quantization = it->get<std::string>();
    }
    if (auto it = doc.find("boost"); it != doc.end()) {
      StatusOr<BoostSpec> boost = ParseBoost(it->get<std::string>());
      if (!boost.ok()) return corrupt(boost.status().message());
      spec.boost = *boost;
    }
    if (doc.contains("embedder")) {
      const json::Value& e = doc.at("embedder");
      spec.embedder = e.at("spec").get<std::string>();
      spec.embedder_identity = {e.at("kind").get<std::string>(), e.at("model").get<std::string>(),
                                json::GetCount(e.at("dimension")),
                                e.at("fingerprint").get<std::string>()};
    }
    if (doc.contains("fusion")) {
      StatusOr<FusionSpec> fusion = ParseFusion(doc.at("fusion").get<std::string>());
      if (!fusion.ok()) return corrupt(fusion.status().message());
      spec.fusion = *fusion;
    }
    if (Status s = ValidateSpec(spec); !s.ok()) return corrupt(s.message());
    return spec;
  } catch (const json::Value::exception& e) {
    return corrupt(e.what());
  }
}

}  // namespace engram::engine
