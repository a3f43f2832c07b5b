#include "cli/embed_command.h"

#include <istream>
#include <ostream>

#include <fmt/format.h>

#include "cli/engine_commands.h"
#include "engram/embedder.h"

namespace engram::cli {

void AddEmbedCommand(CLI::App* app, EmbedCommandOptions* o, std::string* run) {
  CLI::App* cmd = app->add_subcommand(
      "embed", "Print the vector of each text (arguments, else stdin lines) as a JSON array");
  cmd->add_option("--embedder", o->embedder,
                  "model2vec:DIR | fasttext:FILE | openai:URL#MODEL[?key_env=VAR&dimensions=N]")
      ->required();
  cmd->add_option("TEXT", o->texts, "texts to embed (default: one per line of stdin)");
  cmd->callback([run] { *run = "embed"; });
}

int RunEmbed(const EmbedCommandOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  StatusOr<EmbedderSpec> spec = ParseEmbedderSpec(o.embedder);
  if (!spec.ok()) return ReportStatus(spec.status(), err);
  StatusOr<std::unique_ptr<Embedder>> embedder = OpenEmbedder(*spec, 0);
  if (!embedder.ok()) return ReportStatus(embedder.status(), err);
  std::vector<std::string> texts = o.texts;
  if (texts.empty()) {
    for (std::string line; std::getline(in, line);) texts.push_back(std::move(line));
  }
  // Batches bound the memory for long inputs and let an endpoint batch.
  constexpr std::size_t kBatch = 256;
  for (std::size_t at = 0; at < texts.size(); at += kBatch) {
    const std::size_t n = std::min(kBatch, texts.size() - at);
    const std::vector<std::string_view> batch(texts.begin() + at, texts.begin() + at + n);
    StatusOr<std::vector<std::vector<float>>> vectors = (*embedder)->Embed(batch);
    if (!vectors.ok()) {
      // "texts[i]: ..." counts within the batch: name the input line.
      const Status status = vectors.status();
      const std::string& m = status.message();
      if (m.rfind("texts[", 0) == 0) {
        const std::size_t close = m.find(']');
        const std::size_t i = std::stoul(m.substr(6, close - 6));
        err << "engram: text " << at + i + 1 << m.substr(close + 1) << '\n';
        return 1;
      }
      return ReportStatus(status, err);
    }
    for (const std::vector<float>& v : *vectors) {
      // The shortest text that reads back as the same float.
      out << '[' << fmt::format("{}", fmt::join(v, ",")) << "]\n";
    }
  }
  return 0;
}

}  // namespace engram::cli
