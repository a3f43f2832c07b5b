// `engram collection create|list` and `engram delete`, and the registration
// of every engine command.
#include <charconv>
#include <ostream>
#include <string>

#include "cli/engine_commands.h"
#include "cli/output.h"
#include "cli/store_option.h"
#include "engram/engine.h"

namespace engram::cli {
namespace {

constexpr const char* kAsOfHelp =
    "read the records current at this instant (RFC 3339, or a date: its midnight UTC); "
    "default: now";

// "title:2,body" -> [{title, 2}, {body, 1}].
bool ParseTextFields(const std::string& spec, std::vector<TextFieldSpec>* fields,
                     std::ostream& err) {
  std::size_t start = 0;
  while (start <= spec.size() && !spec.empty()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(start, end - start);
    TextFieldSpec f;
    const std::size_t colon = item.rfind(':');
    f.name = item.substr(0, colon);
    if (colon != std::string::npos) {
      try {
        std::size_t used = 0;
        f.weight = std::stod(item.substr(colon + 1), &used);
        if (used != item.size() - colon - 1) throw std::invalid_argument("trailing");
      } catch (const std::exception&) {
        err << "engram: --text: '" << item << "': the weight after ':' must be a number\n";
        return false;
      }
    }
    fields->push_back(f);
    start = end + 1;
  }
  return true;
}

// "384:cosine[:int8]" -> dim, metric, quantization.
bool ParseVectors(const std::string& spec, CollectionSpec* c, std::ostream& err) {
  const std::size_t colon = spec.find(':');
  const std::string dim = spec.substr(0, colon);
  auto [end, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), c->vector_dim);
  if (ec != std::errc() || end != dim.data() + dim.size() || c->vector_dim == 0) {
    err << "engram: --vectors: '" << spec
        << "': expected DIM:METRIC[:QUANTIZATION], e.g. 384:cosine or 384:cosine:int8\n";
    return false;
  }
  if (colon == std::string::npos) return true;
  const std::size_t second = spec.find(':', colon + 1);
  c->metric = spec.substr(colon + 1, second == std::string::npos ? second : second - colon - 1);
  if (second != std::string::npos) c->quantization = spec.substr(second + 1);
  return true;
}

}  // namespace

int ReportStatus(const Status& status, std::ostream& err) {
  err << "engram: " << status.message() << '\n';
  if (status.code() == StatusCode::kNotFound) return 4;
  if (status.code() == StatusCode::kInvalidArgument ||
      status.code() == StatusCode::kAlreadyExists) {
    return 1;
  }
  return 3;
}

void AddRankingOptions(CLI::App* cmd, EngineOptions* o, const std::string& which) {
  cmd->add_option("--decay", o->decay,
                  which +
                      "recency decay: FIELD:exp|gauss|linear:SCALE[:OFFSET[:FLOOR]] (SCALE, "
                      "OFFSET: 30d, 12h, ...; FLOOR in [0, 1]) or off");
  cmd->add_option("--boost", o->boost, which + "importance boost: FIELD[:WEIGHT] or off");
}

bool ParseRanking(const EngineOptions& o, std::optional<DecaySpec>* decay,
                  std::optional<BoostSpec>* boost, std::ostream& err) {
  if (!o.decay.empty()) {
    StatusOr<DecaySpec> d = ParseDecay(o.decay);
    if (!d.ok()) {
      err << "engram: --" << d.status().message() << '\n';
      return false;
    }
    *decay = *d;
  }
  if (!o.boost.empty()) {
    StatusOr<BoostSpec> b = ParseBoost(o.boost);
    if (!b.ok()) {
      err << "engram: --" << b.status().message() << '\n';
      return false;
    }
    *boost = *b;
  }
  return true;
}

bool ParseFusionOption(const std::string& text, std::optional<FusionSpec>* out, std::ostream& err) {
  if (text.empty()) return true;
  StatusOr<FusionSpec> fusion = ParseFusion(text);
  if (!fusion.ok()) {
    err << "engram: --fusion: " << fusion.status().message() << '\n';
    return false;
  }
  *out = *fusion;
  return true;
}

void AddEngineCommands(CLI::App* app, EngineOptions* o, std::string* run) {
  auto db = [o](CLI::App* cmd) {
    AddStoreOptions(cmd, &o->db, "the store directory (created if missing)");
  };
  auto collection = [o](CLI::App* cmd) {
    cmd->add_option("--collection", o->collection, "the collection")->required();
  };

  CLI::App* coll = app->add_subcommand("collection", "Create and list collections");
  coll->require_subcommand(1);
  CLI::App* create = coll->add_subcommand("create", "Create a collection");
  db(create);
  create->add_option("--name", o->collection, "the collection's name")->required();
  create->add_option("--schema", o->schema, "a schema JSON file, or preset:memory / preset:notes")
      ->required();
  create->add_option("--text", o->text, "full-text fields: FIELD[:WEIGHT],...");
  create->add_option("--vectors", o->vectors,
                     "DIM:METRIC[:QUANTIZATION] (cosine, dot, l2; none or int8: graph walks on "
                     "8-bit copies of the vectors, re-ranked with the floats)");
  create->add_option("--language", o->language, "stemming of text fields: en, nl or none")
      ->check(CLI::IsMember({"en", "nl", "none"}));
  create->add_option("--time-field", o->time_field, "a datetime field for temporal hints");
  AddRankingOptions(create, o, "the searches' default ");
  create->add_option("--dedup", o->dedup,
                     "deduplication on write, per owner: off, exact (normalised text) or "
                     "near:THRESHOLD (vector similarity), then :skip (the default: the "
                     "duplicate is not written) or :refresh (nor written, but the original's "
                     "--time-field takes the duplicate's later time)");
  create->add_option("--graph-field", o->graph_fields,
                     "a string, bool or set<string> field whose frequent values each get their "
                     "own vector graph, so that vector searches filtered on them (or scoped to an "
                     "agent, for agent_id) stay fast and exact (repeat for more)");
  create
      ->add_option("--hit-count-field", o->hit_count_field,
                   "an int field counting the searches that returned each record (preset:notes: "
                   "hit_count; '' for none)")
      ->each([o](const std::string&) { o->has_hit_count_field = true; });
  create
      ->add_option("--last-hit-field", o->last_hit_field,
                   "a datetime field: when a search last returned each record (preset:notes: "
                   "last_hit_at; '' for none)")
      ->each([o](const std::string&) { o->has_last_hit_field = true; });
  create
      ->add_option("--ttl-field", o->ttl_field,
                   "a datetime field: records expire at it (preset:notes: expires_at; '' for "
                   "none)")
      ->each([o](const std::string&) { o->has_ttl_field = true; });
  create->add_option("--embedder", o->embedder,
                     "embed the text fields of records without a vector, and queries: "
                     "model2vec:DIR | fasttext:FILE | openai:URL#MODEL[?key_env=VAR&dimensions=N]");
  create->add_option("--fusion", o->fusion,
                     "the default fusion of hybrid searches (as search --fusion)");
  create->callback([run] { *run = "collection create"; });
  CLI::App* reembed = coll->add_subcommand(
      "reembed", "Switch a collection to another embedder (searches go on meanwhile)");
  db(reembed);
  collection(reembed);
  reembed->add_option("--embedder", o->embedder, "the new embedder spec")->required();
  reembed->add_flag("--json", o->json, "print the summary as JSON");
  reembed->callback([run] { *run = "collection reembed"; });
  CLI::App* list = coll->add_subcommand("list", "List the collections with their sizes");
  db(list);
  list->add_flag("--json", o->json, "one JSON document");
  list->callback([run] { *run = "collection list"; });

  CLI::App* ingest = app->add_subcommand("ingest", "Write the records of a JSONL file");
  db(ingest);
  collection(ingest);
  ingest->add_option("FILE", o->file, "JSONL: one record per line")->required();
  ingest->add_option("--batch", o->batch, "records per durable batch")
      ->check(CLI::Range(1, 100000));
  ingest->add_flag("--json", o->json, "print the summary as JSON");
  ingest->callback([run] { *run = "ingest"; });

  CLI::App* search = app->add_subcommand("search", "Search a collection");
  db(search);
  collection(search);
  search->add_option("--query", o->query, "a text query (the query DSL)")
      ->each([o](const std::string&) { o->has_query = true; });
  search->add_option("--vector", o->vector, "a query vector as a JSON array of numbers");
  search->add_option("--mode", o->mode, "text | vector | hybrid")
      ->check(CLI::IsMember({"text", "vector", "hybrid"}));
  search->add_option("--filter", o->filter, "a filter (JSON text, in --dialect)");
  search->add_option("--dialect", o->dialect,
                     "the filter's dialect: retrieve | expr_v1 | vector_filter | search_memory");
  search->add_option("--k", o->k, "results to return")->check(CLI::Range(1, 10000));
  search->add_option("--candidate-k", o->candidate_k, "candidates per retriever")
      ->check(CLI::Range(1, 10000));
  search->add_option("--filter-mode", o->filter_mode, "auto | pre | post")
      ->check(CLI::IsMember({"auto", "pre", "post"}));
  search->add_option("--threshold", o->threshold, "a distance cut-off (cosine, l2)")
      ->check(CLI::NonNegativeNumber);
  search->add_option("--score-threshold", o->score_threshold, "a relevance floor in [0, 1]")
      ->check(CLI::Range(0.0, 1.0));
  search->add_option("--fusion", o->fusion,
                     "hybrid fusion: rrf[:k=60] | weighted_rrf:text=W,vector=W[,k=60] | "
                     "convex:alpha=A[,normalization=min_max|z_score]");
  search->add_option("--anchor", o->anchor, "the date of temporal hints, YYYY-MM-DD");
  search->add_option("--as-of", o->as_of, kAsOfHelp);
  AddRankingOptions(search, o, "");
  search->add_flag("--explain", o->explain, "show the plan, counts and timings");
  search->add_flag("--impact", o->impact, "show the filter's impact");
  search->add_flag("--json", o->json, "one JSON document");
  search->callback([run] { *run = "search"; });

  CLI::App* del = app->add_subcommand("delete", "Delete records by id or by filter");
  db(del);
  collection(del);
  auto* by_id = del->add_option("--id", o->ids, "a record id (repeatable)");
  auto* by_filter = del->add_option("--filter", o->filter, "a filter (JSON text, in --dialect)");
  by_id->excludes(by_filter);
  del->add_option("--dialect", o->dialect, "the filter's dialect");
  del->add_flag("--json", o->json, "print the result as JSON");
  del->callback([run] { *run = "delete"; });

  auto selection = [o](CLI::App* cmd) {
    cmd->add_option("--filter", o->filter, "a filter (JSON text, in --dialect)");
    cmd->add_option("--dialect", o->dialect,
                    "the filter's dialect: retrieve | expr_v1 | vector_filter | search_memory");
    cmd->add_option("--as-of", o->as_of, kAsOfHelp);
    cmd->add_flag("--json", o->json, "one JSON document");
  };
  CLI::App* pages = app->add_subcommand("list", "List records page by page, in an order");
  db(pages);
  collection(pages);
  selection(pages);
  pages->add_option("--order-by", o->order_by,
                    "FIELD[:asc|desc] (default: the time field, newest first; else by id)");
  pages->add_option("--page-size", o->page_size, "records per page")
      ->check(CLI::Range(std::size_t{1}, kMaxPageSize));
  pages->add_option("--page-token", o->page_token, "next_page_token of the previous page");
  pages->callback([run] { *run = "list"; });
  CLI::App* count = app->add_subcommand("count", "Count the records passing a filter");
  db(count);
  collection(count);
  selection(count);
  count->callback([run] { *run = "count"; });
  CLI::App* facets = app->add_subcommand("facets", "Top values, or counts per range, of one field");
  db(facets);
  collection(facets);
  selection(facets);
  facets->add_option("--field", o->field, "the field")->required();
  facets->add_option("--top", o->top, "how many values (string, bool, set<string> fields)")
      ->check(CLI::Range(std::size_t{1}, kMaxFacetTop));
  facets->add_option("--ranges", o->ranges,
                     "FROM..TO,... for int, float, datetime fields: from inclusive, to "
                     "exclusive, either side may be empty");
  facets->callback([run] { *run = "facets"; });
}

int RunCollectionCreate(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  StatusOr<SchemaRef> schema = SchemaRef::Load(o.schema);
  if (!schema.ok()) {
    err << "engram: --schema: " << schema.status().message() << '\n';
    return 2;
  }
  CollectionSpec spec{o.collection, *schema, {}, 0, "cosine", o.language, o.time_field};
  spec.ttl_field = o.has_ttl_field ? o.ttl_field : std::string(DefaultTtlField(o.schema));
  spec.hit_count_field =
      o.has_hit_count_field ? o.hit_count_field : std::string(DefaultHitCountField(o.schema));
  spec.last_hit_field =
      o.has_last_hit_field ? o.last_hit_field : std::string(DefaultLastHitField(o.schema));
  spec.graph_fields = o.graph_fields;
  if (!ParseTextFields(o.text, &spec.text, err)) return 2;
  if (!o.vectors.empty() && !ParseVectors(o.vectors, &spec, err)) return 2;
  if (!ParseRanking(o, &spec.decay, &spec.boost, err)) return 2;
  if (!o.dedup.empty()) {
    StatusOr<DedupSpec> dedup = ParseDedup(o.dedup);
    if (!dedup.ok()) {
      err << "engram: --" << dedup.status().message() << '\n';
      return 2;
    }
    spec.dedup = *dedup;
  }
  spec.embedder = o.embedder;
  if (!ParseFusionOption(o.fusion, &spec.fusion, err)) return 2;
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram collection create");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  if (Status s = (*engine)->CreateCollection(spec); !s.ok()) return ReportStatus(s, err);
  out << "created collection '" << spec.name << "' in " << Engine::ShownStore(o.db) << '\n';
  return 0;
}

int RunCollectionReembed(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  StatusOr<EmbedderSpec> spec = ParseEmbedderSpec(o.embedder);
  if (!spec.ok()) return ReportStatus(spec.status(), err);
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram collection reembed");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  StatusOr<Engine::ReembedReport> report = (*engine)->Reembed(o.collection, *spec);
  if (!report.ok()) return ReportStatus(report.status(), err);
  const EmbedderIdentity& id = report->identity;
  if (o.json) {
    out << Dump(Json{{"ok", true},
                     {"collection", o.collection},
                     {"records", report->records},
                     {"embedder",
                      {{"kind", id.kind},
                       {"model", id.model},
                       {"dimension", id.dimension},
                       {"fingerprint", id.fingerprint}}},
                     {"seconds", report->seconds}})
        << '\n';
  } else {
    out << "re-embedded " << report->records << " records of '" << o.collection << "' with "
        << id.kind << " " << id.model << " (" << id.dimension << "-d) in " << report->seconds
        << " s\n";
  }
  return 0;
}

int RunCollectionList(const EngineOptions& o, std::ostream& out, std::ostream& err) {
  StatusOr<std::unique_ptr<Engine>> engine = OpenStore(o.db, "engram collection list");
  if (!engine.ok()) return ReportStatus(engine.status(), err);
  const std::vector<CollectionInfo> collections = (*engine)->ListCollections();
  Json list = Json::array();
  for (const CollectionInfo& info : collections) {
    Json text = Json::array();
    for (const TextFieldSpec& f : info.spec.text)
      text.push_back({{"name", f.name}, {"weight", f.weight}});
    if (!o.json) {
      out << info.spec.name << "  " << info.records << " records";
      if (!info.spec.text.empty()) out << ", text " << text.dump();
      if (info.spec.vector_dim > 0) {
        out << ", vectors " << info.spec.vector_dim << ':' << info.spec.metric;
        if (info.spec.quantization != "none") out << ':' << info.spec.quantization;
      }
      if (!info.spec.ttl_field.empty()) out << ", expires at " << info.spec.ttl_field;
      if (info.spec.dedup.mode != DedupMode::kOff) out << ", dedup " << DedupText(info.spec.dedup);
      if (!info.spec.hit_count_field.empty()) out << ", hit count " << info.spec.hit_count_field;
      if (!info.spec.last_hit_field.empty()) out << ", last hit " << info.spec.last_hit_field;
      if (info.spec.decay) out << ", decay " << DecayText(*info.spec.decay);
      if (info.spec.boost) out << ", boost " << BoostText(*info.spec.boost);
      if (!info.spec.embedder.empty()) out << ", embedder " << info.spec.embedder;
      if (info.spec.fusion) out << ", fusion " << FusionText(*info.spec.fusion);
      out << '\n';
      continue;
    }
    Json c = {{"name", info.spec.name}, {"records", info.records}, {"text", text}};
    if (info.spec.vector_dim > 0) {
      c["vectors"] = {{"dim", info.spec.vector_dim},
                      {"metric", info.spec.metric},
                      {"quantization", info.spec.quantization}};
    }
    if (info.spec.decay) c["decay"] = DecayText(*info.spec.decay);
    if (info.spec.boost) c["boost"] = BoostText(*info.spec.boost);
    if (info.spec.dedup.mode != DedupMode::kOff) c["dedup"] = DedupText(info.spec.dedup);
    if (!info.spec.ttl_field.empty()) c["ttl_field"] = info.spec.ttl_field;
    if (!info.spec.hit_count_field.empty()) c["hit_count_field"] = info.spec.hit_count_field;
    if (!info.spec.last_hit_field.empty()) c["last_hit_field"] = info.spec.last_hit_field;
    if (!info.spec.graph_fields.empty()) c["graph_fields"] = info.spec.graph_fields;
    if (!info.spec.embedder.empty()) {
      const EmbedderIdentity& id = info.spec.embedder_identity;
      c["embedder"] = {{"spec", info.spec.embedder},
                       {"kind", id.kind},
                       {"model", id.model},
                       {"dimension", id.dimension},
                       {"fingerprint", id.fingerprint}};
    }
    if (info.spec.fusion) c["fusion"] = FusionText(*info.spec.fusion);
    list.push_back(c);
  }
  if (o.json) {
    out << Dump(Json{{"collections", list}}) << '\n';
  } else if (collections.empty()) {
    out << "no collections in " << Engine::ShownStore(o.db) << '\n';
  }
  return 0;
}

}  // namespace engram::cli
