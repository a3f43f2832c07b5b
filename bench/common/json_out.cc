#include "common/json_out.h"

#include <filesystem>
#include <stdexcept>

namespace engram::bench {

JsonOut::JsonOut(const std::string& path) : path_(path) {
  if (path.empty()) return;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  out_.open(path, std::ios::trunc);
  if (!out_) throw std::runtime_error("--json-out: cannot write " + path);
}

void JsonOut::Write(const nlohmann::ordered_json& row) {
  if (!enabled()) return;
  out_ << row.dump() << '\n';
  out_.flush();
  if (!out_) throw std::runtime_error("--json-out: cannot write " + path_);
}

}  // namespace engram::bench
