#include "embed/embedding_cache.h"

#include "base/status.h"
#include "embed/digest.h"

namespace engram::embed {

StatusOr<std::vector<std::vector<float>>> CachingEmbedder::Embed(
    std::span<const std::string_view> texts) const {
  std::vector<std::string> keys;
  keys.reserve(texts.size());
  for (std::string_view t : texts) keys.push_back(Sha256::Of(t));
  std::vector<std::vector<float>> out(texts.size());
  std::vector<std::string_view> missing;             // distinct texts to embed
  std::unordered_map<std::string, std::size_t> ask;  // key -> position in `missing`
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (auto it = index_.find(keys[i]); it != index_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second);
        out[i] = it->second->second;
        ++counts_.hits;
      } else if (ask.emplace(keys[i], missing.size()).second) {
        missing.push_back(texts[i]);
        ++counts_.misses;
      } else {
        ++counts_.hits;  // repeated within the call: asked once
      }
    }
  }
  if (missing.empty()) return out;
  ASSIGN_OR_RETURN(std::vector<std::vector<float>> fresh, inner_->Embed(missing));
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (auto it = ask.find(keys[i]); it != ask.end()) out[i] = fresh[it->second];
  }
  if (max_bytes_ == 0) return out;
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [key, at] : ask) {
    if (index_.count(key) != 0) continue;  // another thread put it meanwhile
    lru_.emplace_front(key, std::move(fresh[at]));
    index_.emplace(key, lru_.begin());
    counts_.bytes += Cost(lru_.front());
  }
  while (counts_.bytes > max_bytes_ && !lru_.empty()) {
    counts_.bytes -= Cost(lru_.back());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
  counts_.entries = lru_.size();
  return out;
}

CachingEmbedder::Counts CachingEmbedder::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

}  // namespace engram::embed
