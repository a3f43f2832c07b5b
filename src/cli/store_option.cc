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

CLI::App* AddStoreOptions(CLI::App* cmd, std::string* store, const std::string& dir_description) {
  CLI::Validator expand(
      [](std::string& path) -> std::string {
        std::optional<std::string> expanded = ExpandHome(path);
        if (!expanded) return "cannot expand '" + path + "': no home directory is known";
        path = std::move(*expanded);
        return "";
      },
      "DIR");
  CLI::Validator url(
      [](std::string& given) -> std::string {
        if (!given.starts_with("postgresql://") && !given.starts_with("postgres://")) {
          return "'" + Engine::ShownStore(given) +
                 "' is not a store URL: give postgresql://USER@HOST[:PORT]/DATABASE (or --db DIR "
                 "for the embedded store)";
        }
        if (given.ends_with("://")) return "'" + given + "' names no server or database";
        return "";
      },
      "URL");
  CLI::App* group = cmd->add_option_group("store", "where the records live");
  group->add_option("--db", *store, dir_description)->transform(expand);
  group
      ->add_option("--store", *store,
                   "a PostgreSQL store: postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?...] "
                   "(libpq's URL; its tables are created on first use)")
      ->check(url);
  group->require_option(1);
  return group;
}

StatusOr<std::unique_ptr<Engine>> OpenStore(const std::string& db, std::string_view command) {
  Engine::Options options;
  options.holder = std::string(command);
  return Engine::Open(db, options);
}

}  // namespace engram::cli
