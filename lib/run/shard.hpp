// --shard: which share of the inputs this process takes, given as K/N or found in the
// environment of a cluster job array (--shard auto; docs/cluster.md).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace aug {

struct Shard {
  int index = 0, count = 1;
  std::string source;  // where K and N came from, for the log: "--shard 2/8", "Slurm job array (...)"
};

// A variable's value, or nullopt when it is not set (std::getenv by default).
using Environment = std::function<std::optional<std::string>(const std::string& name)>;
Environment process_environment();

// "K/N" (0 <= K < N), or "auto": K and N from, in this order,
//  - a Slurm job array: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_MAX
//    (and SLURM_ARRAY_TASK_STEP when not 1): K = (ID - MIN) / STEP, N = (MAX - MIN) / STEP + 1,
//    checked against SLURM_ARRAY_TASK_COUNT when that is set; or with SLURM_ARRAY_TASK_COUNT
//    alone: K = ID, N = COUNT (an array 0-(N-1));
//  - a Kubernetes Indexed Job: K = JOB_COMPLETION_INDEX, N = `shards` (--shards, the Job's
//    completions) or else AUGMENT_SHARDS.
// `shards` is only for "auto". Throws UsageError naming the option or the variable at fault, and
// listing the variables looked for when none is set.
Shard parse_shard(const std::string& text, std::optional<int> shards, const Environment& env = process_environment());

}  // namespace aug
