// Decoding a collection's configuration (`POST /collections`, and the
// embedder of `POST /collections/{name}/reembed`), and the members a search
// shares with it (fusion, decay, boost): request_fields.h.
#include <string>

#include "server/common/json_input.h"
#include "server/http/request_decode.h"
#include "server/http/request_fields.h"

namespace engram::server::http {
namespace {

using nlohmann::json;

// `embedder`: the spec's text form ("model2vec:DIR", "openai:URL#MODEL?...")
// or the same as an object {kind, path | url + model, key_env, dimensions,
// batch, timeout_ms, retries}; stored in `out` as the text form.
bool ReadEmbedder(ObjectReader& r, std::string* out) {
  const json* v = r.Get("embedder");
  if (v == nullptr) return false;
  std::string text;
  if (v->is_string()) {
    text = v->get<std::string>();
  } else if (v->is_object()) {
    ObjectReader e(*v, r.PathOf("embedder"));
    EmbedderSpec spec;
    if (e.Require("kind")) e.Enum("kind", &spec.kind, {"model2vec", "fasttext", "openai"});
    e.String("path", &spec.path, 4096);
    e.String("url", &spec.url, 4096);
    e.String("model", &spec.model, 512);
    e.String("key_env", &spec.key_env, 256);
    std::size_t n = 0;
    if (e.Size("dimensions", &n, 1, 65536)) spec.dimensions = n;
    e.Size("batch", &spec.batch, 1, 2048);
    e.Size("timeout_ms", &spec.timeout_ms, 1, 600000);
    e.Size("retries", &spec.retries, 0, 10);
    if (!e.Finish()) {
      r.Fail(e.problem());
      return false;
    }
    text = EmbedderSpecText(spec);
  } else {
    r.Fail("embedder",
           "expected a spec string (model2vec:DIR, fasttext:FILE, "
           "openai:URL#MODEL) or an object, got " +
               JsonTypeName(*v));
    return false;
  }
  if (text.size() > 8192) {
    r.Fail("embedder", "longer than 8192 bytes");
    return false;
  }
  StatusOr<EmbedderSpec> parsed = ParseEmbedderSpec(text);
  if (!parsed.ok()) {
    r.Fail("embedder", parsed.status().message());
    return false;
  }
  *out = EmbedderSpecText(*parsed);
  return true;
}

}  // namespace

bool ReadFusion(ObjectReader& r, std::optional<FusionSpec>* out) {
  const json* v = r.Get("fusion");
  if (v == nullptr) return false;
  FusionSpec spec;
  if (v->is_string()) {
    StatusOr<FusionSpec> parsed = ParseFusion(v->get<std::string>());
    if (!parsed.ok()) {
      r.Fail("fusion", parsed.status().message());
      return false;
    }
    spec = *parsed;
  } else if (v->is_object()) {
    ObjectReader f(*v, r.PathOf("fusion"));
    if (f.Require("method")) f.Enum("method", &spec.method, {"rrf", "weighted_rrf", "convex"});
    f.Size("k", &spec.rrf_k, 0, 1000000);
    if (const json* w = f.Get("weights"); w != nullptr) {
      ObjectReader weights(*w, f.PathOf("weights"));
      weights.Number("text", &spec.text_weight, 0, 1e6);
      weights.Number("vector", &spec.vector_weight, 0, 1e6);
      if (!weights.Finish()) f.Fail(weights.problem());
    }
    f.Number("alpha", &spec.alpha, 0, 1);
    f.Enum("normalization", &spec.normalization, {"min_max", "z_score"});
    if (!f.Finish()) {
      r.Fail(f.problem());
      return false;
    }
    if (StatusOr<FusionSpec> checked = ParseFusion(FusionText(spec)); !checked.ok()) {
      r.Fail("fusion", checked.status().message());
      return false;
    }
  } else {
    r.Fail("fusion",
           "expected a fusion string (rrf, weighted_rrf:text=1,vector=2, "
           "convex:alpha=0.5) or an object, got " +
               JsonTypeName(*v));
    return false;
  }
  *out = spec;
  return true;
}

void ReadRanking(ObjectReader& r, std::optional<DecaySpec>* decay,
                 std::optional<BoostSpec>* boost) {
  // ParseDecay's and ParseBoost's messages start with the key the path names.
  auto detail = [](const Status& s) {
    const std::size_t colon = s.message().find(": ");
    return colon == std::string::npos ? s.message() : s.message().substr(colon + 2);
  };
  std::string text;
  if (r.String("decay", &text, 512)) {
    StatusOr<DecaySpec> d = ParseDecay(text);
    if (d.ok()) {
      *decay = *d;
    } else {
      r.Fail("decay", detail(d.status()));
    }
  }
  if (r.String("boost", &text, 512)) {
    StatusOr<BoostSpec> b = ParseBoost(text);
    if (b.ok()) {
      *boost = *b;
    } else {
      r.Fail("boost", detail(b.status()));
    }
  }
}

Decoded<CollectionSpec> DecodeCollectionSpec(const json& body, const Limits& /*limits*/) {
  ObjectReader r(body, "$");
  struct {
    std::string name;
    std::vector<TextFieldSpec> text;
    std::size_t vector_dim = 0;
    std::string metric = "cosine";
    std::string quantization = "none";
    std::string language = "en";
    std::string time_field;
    std::optional<std::string> ttl_field;
    std::optional<std::string> hit_count_field, last_hit_field;
    std::optional<DecaySpec> decay;
    std::optional<BoostSpec> boost;
  } spec;
  if (r.Require("name")) r.String("name", &spec.name, 64);
  const bool ttl_given = body.is_object() && body.contains("ttl_field");
  const bool hit_count_given = body.is_object() && body.contains("hit_count_field");
  const bool last_hit_given = body.is_object() && body.contains("last_hit_field");
  std::optional<SchemaRef> schema;
  if (const json* s = r.Require("schema"); s != nullptr) {
    if (s->is_string()) {
      const std::string& name = s->get_ref<const std::string&>();
      // A preset's TTL field unless the body names one ("" or null: none).
      if (!ttl_given) spec.ttl_field = std::string(DefaultTtlField(name));
      if (!hit_count_given) spec.hit_count_field = std::string(DefaultHitCountField(name));
      if (!last_hit_given) spec.last_hit_field = std::string(DefaultLastHitField(name));
      if (name.rfind("preset:", 0) != 0) {
        r.Fail("schema", "expected \"preset:memory\", \"preset:notes\" or a schema object");
      } else if (StatusOr<SchemaRef> loaded = SchemaRef::Load(name); loaded.ok()) {
        schema = *loaded;
      } else {
        r.Fail("schema", loaded.status().message());
      }
    } else if (s->is_object()) {
      Checked<SchemaRef> parsed = SchemaRef::Parse(s->dump());
      if (parsed.ok()) {
        schema = parsed.value();
      } else {
        r.Fail(FromDiagnostic(parsed.diagnostic(), r.PathOf("schema")));
      }
    } else {
      r.Fail("schema", "expected a preset name or a schema object, got " + JsonTypeName(*s));
    }
  }
  if (const json* text = r.Get("text"); text != nullptr) {
    if (!text->is_array() || text->size() > 64) {
      r.Fail("text", "expected an array of at most 64 {name, weight} objects");
    }
    for (std::size_t i = 0; r.ok() && i < text->size(); ++i) {
      const std::string path = JsonPathIndex(r.PathOf("text"), i);
      TextFieldSpec field;
      if ((*text)[i].is_string()) {
        field.name = (*text)[i].get<std::string>();
      } else {
        ObjectReader f((*text)[i], path);
        if (f.Require("name")) f.String("name", &field.name, 64);
        f.Number("weight", &field.weight, 0, 1000);
        if (!f.Finish()) r.Fail(f.problem());
      }
      spec.text.push_back(std::move(field));
    }
  }
  if (const json* vector = r.Get("vector"); vector != nullptr) {
    ObjectReader v(*vector, r.PathOf("vector"));
    if (v.Require("dim")) v.Size("dim", &spec.vector_dim, 1, 65536);
    v.Enum("metric", &spec.metric, {"cosine", "dot", "l2"});
    v.Enum("quantization", &spec.quantization, {"none", "int8"});
    if (!v.Finish()) r.Fail(v.problem());
  }
  r.Enum("language", &spec.language, {"en", "nl", "none"});
  r.String("time_field", &spec.time_field, 64);
  if (ttl_given) r.String("ttl_field", &spec.ttl_field.emplace(), 64);
  if (hit_count_given) r.String("hit_count_field", &spec.hit_count_field.emplace(), 64);
  if (last_hit_given) r.String("last_hit_field", &spec.last_hit_field.emplace(), 64);
  ReadRanking(r, &spec.decay, &spec.boost);
  DedupSpec dedup;
  std::string dedup_text;
  if (r.String("dedup", &dedup_text, 64)) {
    StatusOr<DedupSpec> parsed = ParseDedup(dedup_text);
    if (parsed.ok()) {
      dedup = *parsed;
    } else {
      r.Fail("dedup", parsed.status().message().substr(sizeof("dedup: ") - 1));
    }
  }
  std::vector<std::string> graph_fields;
  if (const json* g = r.Get("graph_fields"); g != nullptr) {
    if (!g->is_array() || g->size() > kMaxGraphFields) {
      r.Fail("graph_fields",
             "expected an array of at most " + std::to_string(kMaxGraphFields) + " field names");
    }
    for (std::size_t i = 0; r.ok() && i < g->size(); ++i) {
      const json& name = (*g)[i];
      if (!name.is_string() || name.get_ref<const std::string&>().size() > 256) {
        r.Fail("graph_fields", "element " + std::to_string(i) +
                                   ": expected a field name (a string of at most 256 bytes)");
      } else {
        graph_fields.push_back(name.get<std::string>());
      }
    }
  }
  std::size_t graph_min_records = kDefaultGraphMinRecords;
  r.Size("graph_min_records", &graph_min_records, 16, std::size_t{1} << 31);
  std::string embedder;
  ReadEmbedder(r, &embedder);
  std::optional<FusionSpec> fusion;
  ReadFusion(r, &fusion);
  if (!r.Finish()) return r.problem();
  CollectionSpec out{std::move(spec.name), *schema,       std::move(spec.text), spec.vector_dim,
                     spec.metric,          spec.language, spec.time_field};
  out.embedder = std::move(embedder);
  out.fusion = fusion;
  out.ttl_field = spec.ttl_field.value_or("");
  out.hit_count_field = spec.hit_count_field.value_or("");
  out.last_hit_field = spec.last_hit_field.value_or("");
  out.decay = spec.decay;
  out.boost = spec.boost;
  out.dedup = dedup;
  out.graph_fields = std::move(graph_fields);
  out.graph_min_records = graph_min_records;
  out.quantization = spec.quantization;
  return out;
}

Decoded<EmbedderSpec> DecodeReembed(const json& body, const Limits& /*limits*/) {
  ObjectReader r(body, "$");
  std::string text;
  if (r.Require("embedder")) ReadEmbedder(r, &text);
  if (!r.Finish()) return r.problem();
  return ParseEmbedderSpec(text).value();
}

}  // namespace engram::server::http
