// Memory that changes (issue 20): does an agent asking about a fact get the
// current one? A seeded, generated timeline of memories about people: each
// subject (a person and an attribute: the home city of Ava Lindqvist) gets a
// first fact, often one or two corrections later ("Update: ... changed from
// Oslo to Lima"), chatter that names the person but neither the attribute
// nor a value, and a temporary fact that expired before the questions are asked
// (the collection's TTL field hides it). Days 0 to --days, written in order,
// the engine's clock following the timeline. No text uses the possessive:
// QUERY_DSL §2 deletes the apostrophe, so "Santos's" is the word `santoss`,
// which does not match `Santos` (a limit of the specified tokeniser, not
// what this benchmark is about).
//
// The same timeline goes into two collections: `plain`, where a correction
// is just another record, and `versioned`, where it names the fact it
// corrects in `supersedes`. Then one question per subject ("what is the
// home city of Ava Lindqvist"), text search, k = 5, unscoped, asked of:
//   plain                    BM25 alone
//   plain + decay            exp decay on the fact's day (--decay-scale days,
//                            floor --decay-floor; and a gentle 180 days, floor
//                            0.8), nothing superseded
//   versioned                supersession, no decay
//   versioned + decay        both (each decay)
//   versioned as of          as_of the day before each subject's last
//                            correction: the fact current then must come first
// and reports, per configuration, the share of questions whose current fact
// is ranked first, is in the top 5 (recall@5), and whose top 5 holds a
// superseded fact. Markdown on stdout, progress on stderr.
//
//   memory_benchmark [--subjects N] [--days D] [--seed S] [--decay-scale DAYS]
//                    [--decay-floor F] [--work DIR]
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "common/cli.h"
#include "common/measure.h"
#include "engram/engine.h"

namespace engram::bench {
namespace {

namespace fs = std::filesystem;
using SystemClock = std::chrono::system_clock;

constexpr const char* kSchema = R"({"fields":[
  {"name":"person","type":"string","required":true},
  {"name":"day","type":"datetime","required":true},
  {"name":"expires_at","type":"datetime","optional":true}]})";

struct Options {
  std::size_t subjects = 1000;
  int days = 240;
  std::uint64_t seed = 7;
  double decay_scale_days = 30;
  double decay_floor = 0.2;
  std::string work = std::string(ENGRAM_BENCH_BUILD_DIR) + "/memory-bench";
};

const char* kFirst[] = {"Ava",   "Liam",  "Noor",  "Mateo", "Yuki",  "Olu",   "Ines", "Ravi",
                        "Sofia", "Jonas", "Mei",   "Tariq", "Lena",  "Kofi",  "Elif", "Bruno",
                        "Hana",  "Idris", "Maja",  "Pavel", "Zara",  "Diego", "Aiko", "Femi",
                        "Clara", "Omar",  "Greta", "Sami",  "Leila", "Hugo",  "Nia",  "Arjun"};
const char* kLast[] = {"Lindqvist", "Okafor",   "Haddad",  "Moreau", "Tanaka", "Kowalski",
                       "Alvarez",   "Nakamura", "Byrne",   "Mensah", "Petrov", "Costa",
                       "Schmidt",   "Dubois",   "Khan",    "Larsen", "Rossi",  "Yilmaz",
                       "Novak",     "Ibrahim",  "Fischer", "Santos", "Walsh",  "Horvat"};
struct Attribute {
  const char* name;
  std::vector<const char*> values;
};
const Attribute kAttributes[] = {
    {"home city", {"Oslo", "Lima", "Accra", "Porto", "Osaka", "Quebec", "Tbilisi", "Lyon"}},
    {"favourite colour", {"teal", "crimson", "ochre", "violet", "amber", "navy", "olive"}},
    {"job", {"nurse", "welder", "architect", "baker", "pilot", "teacher", "chemist"}},
    {"pet", {"beagle", "parrot", "tortoise", "ferret", "tabby", "goldfish", "rabbit"}},
    {"favourite food", {"ramen", "paella", "pierogi", "falafel", "risotto", "tacos", "pho"}},
    {"car", {"Volvo", "Skoda", "Fiat", "Subaru", "Tesla", "Citroen", "Mazda"}},
    {"hobby", {"climbing", "chess", "pottery", "rowing", "birding", "fencing", "origami"}},
    {"team", {"Ajax", "Benfica", "Celtic", "Napoli", "Galatasaray", "Porto", "Lazio"}},
};
const char* kFirstFact[] = {"The {a} of {p} is {v}.", "{p} told me their {a} is {v}.",
                            "Noted: {a} of {p}: {v}."};
const char* kCorrection[] = {"Update: the {a} of {p} changed from {o} to {v}.",
                             "{p} now says the {a} is {v}, no longer {o}.",
                             "Correction about {p}: {a} {v}."};
const char* kChatter[] = {"{p} and I chatted over coffee about the weekend.",
                          "Need to call {p} back about the invoice.",
                          "{p} was late to the standup again."};

std::string Fill(std::string t, const std::string& p, const std::string& a, const std::string& v,
                 const std::string& o) {
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"{p}", p}, {"{a}", a}, {"{v}", v}, {"{o}", o}}) {
    for (std::size_t at = t.find(key); at != std::string::npos; at = t.find(key, at)) {
      t.replace(at, key.size(), value);
      at += value.size();
    }
  }
  return t;
}

std::string Day(int day) {  // 2026-01-01 + day, as RFC 3339
  const auto t = SystemClock::from_time_t(1767225600) + std::chrono::hours(24 * day);
  const std::time_t s = SystemClock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  return fmt::format("{:04}-{:02}-{:02}T12:00:00Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

struct Memory {
  int day;
  std::string id, text, person, expires;  // expires: RFC 3339 or empty
  std::string supersedes;                 // the fact it corrects (versioned only), or empty
};

struct Subject {
  std::string question;
  std::vector<std::string> facts;  // ids, oldest first: the last is current
  std::vector<int> fact_days;
};

void Generate(const Options& o, std::vector<Memory>* memories, std::vector<Subject>* subjects) {
  std::mt19937_64 rng(o.seed);
  std::set<std::pair<std::string, std::size_t>> used;
  std::size_t next = 0;
  auto id = [&] { return fmt::format("m{}", next++); };
  while (subjects->size() < o.subjects) {
    const std::string person =
        std::string(kFirst[rng() % std::size(kFirst)]) + " " + kLast[rng() % std::size(kLast)];
    const std::size_t a = rng() % std::size(kAttributes);
    if (!used.insert({person, a}).second) continue;
    const Attribute& attr = kAttributes[a];
    Subject s;
    s.question = fmt::format("what is the {} of {}", attr.name, person);
    std::vector<std::size_t> values(attr.values.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = i;
    std::shuffle(values.begin(), values.end(), rng);
    const int corrections = std::discrete_distribution<int>({35, 45, 20})(rng);
    std::vector<int> days;
    for (int i = 0; i <= corrections; ++i) days.push_back(static_cast<int>(rng() % o.days));
    std::sort(days.begin(), days.end());
    for (int i = 0; i <= corrections; ++i) {
      Memory m{days[i], id(), "", person, "", ""};
      const std::string v = attr.values[values[i]];
      if (i == 0) {
        m.text = Fill(kFirstFact[rng() % std::size(kFirstFact)], person, attr.name, v, "");
      } else {
        m.text = Fill(kCorrection[rng() % std::size(kCorrection)], person, attr.name, v,
                      attr.values[values[i - 1]]);
        m.supersedes = s.facts.back();
      }
      s.facts.push_back(m.id);
      s.fact_days.push_back(m.day);
      memories->push_back(m);
    }
    for (int i = 0; i < 2; ++i) {
      memories->push_back({static_cast<int>(rng() % o.days), id(),
                           Fill(kChatter[rng() % std::size(kChatter)], person, attr.name, "", ""),
                           person, "", ""});
    }
    // A temporary fact, expired long before the questions.
    const int day = static_cast<int>(rng() % (o.days - 10));
    memories->push_back({day, id(),
                         Fill("For this week only, the {a} of {p} is {v} (temporary).", person,
                              attr.name, attr.values[values.back()], ""),
                         person, Day(day + 7), ""});
    subjects->push_back(std::move(s));
  }
  std::stable_sort(memories->begin(), memories->end(),
                   [](const Memory& a, const Memory& b) { return a.day < b.day; });
}

std::string Json(const Memory& m, bool versioned) {
  std::string out = fmt::format(R"({{"id":"{}","text":"{}","person":"{}","day":"{}")", m.id, m.text,
                                m.person, Day(m.day));
  if (!m.expires.empty()) out += fmt::format(R"(,"expires_at":"{}")", m.expires);
  if (versioned && !m.supersedes.empty())
    out += fmt::format(R"(,"supersedes":["{}"])", m.supersedes);
  return out + "}";
}

struct Tally {
  std::size_t questions = 0, first = 0, top5 = 0, stale = 0;
};

void Run(const Options& o) {
  std::vector<Memory> memories;
  std::vector<Subject> subjects;
  Generate(o, &memories, &subjects);
  fs::remove_all(o.work);
  SystemClock::time_point now = SystemClock::from_time_t(1767225600);
  Engine::Options eo;
  eo.clock = [&now] { return now; };
  std::unique_ptr<Engine> engine;
  {
    StatusOr<std::unique_ptr<Engine>> opened = Engine::Open(o.work, eo);
    if (!opened.ok()) throw std::runtime_error(opened.status().message());
    engine = std::move(opened).value();
  }
  Checked<SchemaRef> schema = SchemaRef::Parse(kSchema);
  if (!schema.ok()) throw std::runtime_error(schema.diagnostic().message);
  for (const char* name : {"plain", "versioned"}) {
    CollectionSpec spec{name, schema.value(), {{"text", 1.0}}, 0, "cosine", "en", "day"};
    spec.ttl_field = "expires_at";
    if (Status s = engine->CreateCollection(spec); !s.ok()) throw std::runtime_error(s.message());
  }
  // Written day by day, the clock at noon of the day: versions are as of then.
  std::size_t superseded = 0;
  for (std::size_t i = 0; i < memories.size();) {
    const int day = memories[i].day;
    now = SystemClock::from_time_t(1767225600) + std::chrono::hours(24 * day + 12);
    std::vector<std::string> plain, versioned;
    for (; i < memories.size() && memories[i].day == day; ++i) {
      plain.push_back(Json(memories[i], false));
      versioned.push_back(Json(memories[i], true));
    }
    for (const auto& [name, batch] : {std::pair{"plain", &plain}, {"versioned", &versioned}}) {
      std::vector<std::string_view> views(batch->begin(), batch->end());
      StatusOr<WriteResult> w = engine->Upsert(name, views);
      if (!w.ok()) throw std::runtime_error(w.status().message());
      if (w->rejected) throw std::runtime_error(std::string(name) + ": " + w->rejected->message);
      if (std::string_view(name) == "versioned") superseded += w->superseded.size();
    }
  }
  now = SystemClock::from_time_t(1767225600) + std::chrono::hours(24 * (o.days + 1));
  std::cerr << memories.size() << " memories, " << subjects.size() << " subjects, " << superseded
            << " facts superseded\n";

  auto exp_decay = [](double scale_days, double floor) {
    DecaySpec d;
    d.field = "day";
    d.function = DecayFunction::kExp;
    d.scale_seconds = scale_days * 86400;
    d.floor = floor;
    return d;
  };
  const DecaySpec decay = exp_decay(o.decay_scale_days, o.decay_floor);
  const DecaySpec gentle = exp_decay(180, 0.8);
  const std::string decay_name =
      fmt::format("decay (scale {} d, floor {})", o.decay_scale_days, o.decay_floor);
  struct Config {
    std::string name, collection;
    std::optional<DecaySpec> decay;
    bool as_of;
  };
  const std::vector<Config> configs = {
      {"plain (BM25)", "plain", std::nullopt, false},
      {"plain + " + decay_name, "plain", decay, false},
      {"plain + decay (scale 180 d, floor 0.8)", "plain", gentle, false},
      {"versioned (supersedes)", "versioned", std::nullopt, false},
      {"versioned + " + decay_name, "versioned", decay, false},
      {"versioned + decay (scale 180 d, floor 0.8)", "versioned", gentle, false},
      {"versioned, as_of the day before the last correction", "versioned", std::nullopt, true}};
  std::cout << fmt::format(
      "{} memories about {} subjects over {} days (seed {}): {} first facts, {} corrections, {} "
      "chatter, {} expired temporary facts; decay is exp on `day` from the questions' day. Text "
      "search, k = 5, one question per subject.\n\n",
      memories.size(), subjects.size(), o.days, o.seed, subjects.size(), superseded,
      2 * subjects.size(), subjects.size());
  std::cout << "| configuration | questions | current fact first | current fact in top 5 "
               "(recall@5) | a superseded fact in top 5 |\n|---|---:|---:|---:|---:|\n";
  for (const Config& c : configs) {
    Tally t;
    for (const Subject& s : subjects) {
      std::size_t current = s.facts.size() - 1;
      SearchRequest q;
      q.query = s.question;
      q.mode = SearchMode::kText;
      q.k = 5;
      q.decay = c.decay;
      if (c.as_of) {
        if (s.facts.size() < 2) continue;  // nothing was corrected
        // The day before the last correction: the fact before it was current.
        if (s.fact_days[current] == s.fact_days[current - 1]) continue;
        q.as_of = Day(s.fact_days[current] - 1);
        current -= 1;
      }
      StatusOr<SearchResponse> r = engine->Search(c.collection, q);
      if (!r.ok()) throw std::runtime_error(r.status().message());
      ++t.questions;
      bool stale = false, found = false;
      for (std::size_t h = 0; h < r->hits.size(); ++h) {
        const std::string& hit = r->hits[h].id;
        if (hit == s.facts[current]) {
          found = true;
          if (h == 0) ++t.first;
        }
        for (std::size_t f = 0; f < s.facts.size(); ++f) {
          if (f != current && hit == s.facts[f]) stale = true;
        }
      }
      t.top5 += found;
      t.stale += stale;
    }
    auto pct = [&](std::size_t n) {
      return fmt::format("{:.1f} %",
                         100.0 * static_cast<double>(n) / static_cast<double>(t.questions));
    };
    std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", c.name, t.questions, pct(t.first),
                             pct(t.top5), pct(t.stale));
  }
}

}  // namespace
}  // namespace engram::bench

int main(int argc, char** argv) {
  using namespace engram::bench;
  return RunGuarded("memory_benchmark", [&] {
    Options o;
    for (ArgReader args(argc, argv); args.Next();) {
      if (args.Is("--subjects"))
        o.subjects = std::stoul(args.Value());
      else if (args.Is("--days"))
        o.days = std::stoi(args.Value());
      else if (args.Is("--seed"))
        o.seed = std::stoull(args.Value());
      else if (args.Is("--decay-scale"))
        o.decay_scale_days = std::stod(args.Value());
      else if (args.Is("--decay-floor"))
        o.decay_floor = std::stod(args.Value());
      else if (args.Is("--work"))
        o.work = args.Value();
      else
        args.Unknown("see the usage in bench/memory/memory_benchmark.cc");
    }
    if (o.subjects == 0 || o.subjects > 5000 || o.days < 20) {
      throw std::runtime_error("--subjects must be in [1, 5000], --days at least 20");
    }
    Run(o);
  });
}
