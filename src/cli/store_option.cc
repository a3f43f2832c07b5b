#include "cli/store_option.h"

#include <cstdlib>
#include <vector>

#include <pwd.h>
#include <unistd.h>

namespace engram::cli {
namespace {

// The home directory of `user` (empty: the caller) from the password
// database; nullopt when there is none.
std::optional<std::string> PasswdHome(const std::string& user) {
  long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  const int rc = user.empty()
                     ? ::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found)
                     : ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (rc != 0 || found == nullptr || found->pw_dir == nullptr || found->pw_dir[0] == '\0') {
    return std::nullopt;
  }
  return std::string(found->pw_dir);
}

}  // namespace

std::optional<std::string> ExpandHome(std::string_view path) {
  if (path.empty() || path[0] != '~') return std::string(path);
  const std::size_t slash = path.find('/');
  const std::string user(path.substr(1, slash == std::string_view::npos ? path.npos : slash - 1));
  std::optional<std::string> home;
  if (user.empty()) {
    const char* env = std::getenv("HOME");
    home = env != nullptr && env[0] != '\0' ? std::optional<std::string>(env) : PasswdHome("");
  } else {
    home = PasswdHome(user);
  }
  if (!home) return std::nullopt;
  if (slash == std::string_view::npos) return home;
  if (!home->empty() && home->back() == '/') home->pop_back();
  return *home + std::string(path.substr(slash));
}

CLI::Option* AddDbOption(CLI::App* cmd, std::string* db, const std::string& description) {
  CLI::Validator expand(
      [](std::string& path) -> std::string {
        std::optional<std::string> expanded = ExpandHome(path);
        if (!expanded) return "cannot expand '" + path + "': no home directory is known";
        path = std::move(*expanded);
        return "";
      },
      "DIR");
  return cmd->add_option("--db", *db, description)->required()->transform(expand);
}

StatusOr<std::unique_ptr<Engine>> OpenStore(const std::string& db, std::string_view command) {
  Engine::Options options;
  options.holder = std::string(command);
  return Engine::Open(db, options);
}

}  // namespace engram::cli
