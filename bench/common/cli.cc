#include "common/cli.h"

#include <cstdio>
#include <exception>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

namespace engram::bench {

bool ArgReader::Next() {
  if (++i_ >= argc_) return false;
  flag_ = argv_[i_];
  return true;
}

std::string ArgReader::Value() {
  if (i_ + 1 >= argc_) throw std::runtime_error(flag_ + " needs a value");
  return argv_[++i_];
}

std::vector<std::string> ArgReader::List() {
  return SplitCommas(Value());
}

void ArgReader::Unknown(std::string_view hint) const {
  throw std::runtime_error(fmt::format("unknown argument {} ({})", flag_, hint));
}

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int RunGuarded(std::string_view tool, const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", tool, e.what());
    return 1;
  }
  return 0;
}

}  // namespace engram::bench
