#include "server/http/serve.h"

#include <algorithm>
#include <csignal>
#include <memory>
#include <ostream>

#include <pthread.h>
#include <sys/resource.h>

#include "engram/engine.h"
#include "server/http/api.h"
#include "server/http/auth.h"
#include "server/http/server.h"
#include "server/mcp/mcp_server.h"
#include "server/mcp/memory_store.h"

namespace engram::server::http {

bool ParseListen(const std::string& listen, std::string* host, int* port) {
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) return false;
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  int p = 0;
  for (std::size_t i = colon + 1; i < listen.size(); ++i) {
    if (listen[i] < '0' || listen[i] > '9') return false;
    p = p * 10 + (listen[i] - '0');
    if (p > 65535) return false;
  }
  *port = p;
  return !host->empty();
}

namespace {

// Raises the soft limit on open files to the hard one: each connection
// takes a descriptor. Returns how many connections the limit leaves room
// for (the store and the process keep some).
std::size_t ConnectionRoom(std::size_t wanted) {
  constexpr rlim_t kReserve = 64;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return wanted;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  if (limit.rlim_cur == RLIM_INFINITY) return wanted;
  const rlim_t room = limit.rlim_cur > kReserve ? limit.rlim_cur - kReserve : 1;
  return std::min<std::size_t>(wanted, room);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

void LogBounds(const ServerOptions& s, const Limits& l, std::ostream& log) {
  log << "bounds: " << s.max_connections << " connections, " << s.max_in_flight
      << " engine requests in flight on " << s.workers << " workers, " << s.io_threads
      << " I/O threads; head " << s.wire.max_head_bytes << " bytes and " << s.wire.max_headers
      << " fields, target " << s.wire.max_target_bytes << " bytes, body " << l.max_body_bytes
      << " bytes, bodies together " << s.max_body_memory << " bytes; deadlines: idle "
      << s.idle_timeout.count() << " s, receive " << s.receive_timeout.count() << " s, work "
      << static_cast<double>(l.request_timeout.count()) / 1000 << " s, write "
      << s.write_timeout.count() << " s; shutdown grace " << s.shutdown_grace.count() << " s"
      << std::endl;
}

}  // namespace

int Serve(const ServeOptions& options, std::ostream& log) {
  std::string host;
  int port = 0;
  if (!ParseListen(options.listen, &host, &port)) {
    log << "engram serve: --listen: expected HOST:PORT, e.g. 127.0.0.1:7700, got '"
        << options.listen << "'" << std::endl;
    return 2;
  }
  KeyRing keys;
  if (!options.keys.empty()) {
    StatusOr<KeyRing> loaded = KeyRing::Load(options.keys);
    if (!loaded.ok()) {
      log << "engram serve: --keys: " << loaded.status().message() << std::endl;
      return 2;
    }
    keys = std::move(*loaded);
  } else if (!IsLoopbackHost(host)) {
    log << "engram serve: refusing to listen on " << host
        << " without authentication: pass --keys FILE, or listen on a loopback address "
           "(127.0.0.1, ::1)"
        << std::endl;
    return 2;
  }

  StatusOr<BrowserPolicy> browsers =
      BrowserPolicy::Make(host, options.allowed_hosts, options.allowed_origins);
  if (!browsers.ok()) {
    log << "engram serve: " << browsers.status().message() << std::endl;
    return 2;
  }
  if (options.server.max_body_memory < options.limits.max_body_bytes) {
    log << "engram serve: --max-body-memory (" << options.server.max_body_memory
        << ") must be at least --max-body-bytes (" << options.limits.max_body_bytes << ")"
        << std::endl;
    return 2;
  }
  ServerOptions server_options = options.server;
  server_options.max_connections = ConnectionRoom(options.server.max_connections);
  if (server_options.max_connections < options.server.max_connections) {
    log << "engram serve: the open-file limit leaves room for " << server_options.max_connections
        << " connections (--max-connections " << options.server.max_connections << ")" << std::endl;
  }

  // SIGTERM and SIGINT are taken with sigwait below; block them before any
  // thread starts so that every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &signals, &previous);

  log << "engram serve: opening the store " << Engine::ShownStore(options.db) << std::endl;
  Engine::Options engine_options;
  engine_options.holder = "engram serve";
  StatusOr<std::unique_ptr<Engine>> engine = Engine::Open(options.db, engine_options);
  if (!engine.ok()) {
    log << "engram serve: " << engine.status().message() << std::endl;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return 3;
  }
  const std::vector<CollectionInfo> collections = (*engine)->ListCollections();
  const Engine::RecoveryReport& recovery = (*engine)->recovery();
  log << "store " << Engine::ShownStore(options.db) << ": " << collections.size()
      << (collections.size() == 1 ? " collection" : " collections") << ", opened in "
      << recovery.seconds << " s (" << recovery.records << " records read, " << recovery.replayed
      << " indexed again since the last checkpoint)" << std::endl;
  for (const CollectionInfo& c : collections) {
    log << "  collection " << c.spec.name << ": " << c.records << " records" << std::endl;
  }
  log << "auth: " << keys.Describe() << std::endl;
  std::vector<std::string> hosts = {"localhost", "127.0.0.1", "[::1]"};
  const std::string listen_name = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (std::find(hosts.begin(), hosts.end(), listen_name) == hosts.end())
    hosts.push_back(listen_name);
  hosts.insert(hosts.end(), options.allowed_hosts.begin(), options.allowed_hosts.end());
  log << "browsers: the Host must be " << Join(hosts)
      << " (any port); origins allowed: " << Join(options.allowed_origins) << std::endl;
  LogBounds(server_options, options.limits, log);

  mcp::McpOptions mcp_options;
  mcp_options.embedder = options.embedder;
  if (Status s = mcp::CheckMemoryEmbedder(**engine, mcp_options.collection, options.embedder);
      !s.ok()) {
    log << "engram serve: --embedder: " << s.message() << std::endl;
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return 2;
  }
  int code = 0;
  {
    mcp_options.request_timeout = options.limits.request_timeout;
    mcp_options.max_expansions = options.limits.max_expansions;
    mcp_options.max_reply_bytes = options.limits.max_reply_bytes;
    mcp::McpServer mcp(engine->get(), mcp_options);
    ApiOptions api_options;
    api_options.limits = options.limits;
    api_options.browsers = std::move(*browsers);
    api_options.max_in_flight_per_agent = options.max_in_flight_per_agent;
    Api api(engine->get(), &mcp, keys, std::move(api_options));
    Server server(&api, server_options);
    StatusOr<int> bound = server.Bind(host, port);
    if (!bound.ok()) {
      log << "engram serve: " << bound.status().message() << std::endl;
      code = 3;
    } else {
      server.Start();
      const std::string url_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
      const std::string url = "http://" + url_host + ":" + std::to_string(*bound);
      // Later openers of the store are told to reach it through this server
      // (before "listening on", which clients and tests wait for).
      if (Status advertised = (*engine)->Advertise(url); !advertised.ok()) {
        log << "engram serve: " << advertised.message() << std::endl;
      }
      log << "listening on " << url << std::endl;
      const std::string auth = keys.enabled() ? " -H 'Authorization: Bearer KEY'" : "";
      log << "try: curl -s" << auth << " -X POST " << url
          << "/v1/collections/NAME/search -H 'Content-Type: application/json' -d "
             "'{\"query\":\"dragon\",\"k\":3}'"
          << std::endl;
      log << "MCP: point a Streamable HTTP client at " << url
          << "/mcp, or give a stdio client the command `engram mcp --connect " << url << "`"
          << std::endl;
      log << "API description: " << url << "/openapi.json" << std::endl;

      int signal = 0;
      sigwait(&signals, &signal);
      log << "engram serve: " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
          << ": stopped accepting; finishing the requests in flight (at most "
          << server_options.shutdown_grace.count() << " s)" << std::endl;
      api.SetDraining();
      const Server::StopReport report = server.Stop();
      if (report.cut == 0) {
        log << "engram serve: all requests finished" << std::endl;
      } else {
        log << "engram serve: the grace period ended; closed " << report.cut
            << (report.cut == 1 ? " connection" : " connections") << " still busy" << std::endl;
      }
    }
  }
  engine->reset();  // writes index snapshots and closes the store
  log << "engram serve: store " << Engine::ShownStore(options.db) << " closed" << std::endl;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return code;
}

}  // namespace engram::server::http
