#include "lib/run/shard.hpp"

#include <cstdlib>
#include <stdexcept>

#include "lib/core/error.hpp"

namespace aug {

namespace {

// A whole number in [0, 2^31), or nullopt.
std::optional<long> whole(const std::string& text) {
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  const long v = std::strtol(text.c_str(), nullptr, 10);
  if (v > 0x7fffffffL) return std::nullopt;
  return v;
}

const char* kLookedFor =
    "looked for SLURM_ARRAY_TASK_ID (with SLURM_ARRAY_TASK_MIN/MAX or SLURM_ARRAY_TASK_COUNT) of a Slurm job array "
    "and JOB_COMPLETION_INDEX (with --shards N or AUGMENT_SHARDS) of a Kubernetes Indexed Job";

// The variable's number, nullopt when unset; UsageError when set to something else.
std::optional<long> number(const Environment& env, const std::string& name) {
  const auto v = env(name);
  if (!v) return std::nullopt;
  const auto n = whole(*v);
  if (!n) throw UsageError("--shard auto: " + name + "=" + *v + " is not a whole number");
  return n;
}

std::string var(const std::string& name, long v) { return name + "=" + std::to_string(v); }

Shard checked(long k, long n, std::optional<int> shards, const std::string& source) {
  if (shards && *shards != n)
    throw UsageError("--shard auto: --shards " + std::to_string(*shards) + " disagrees with the " + source +
                     ", which has " + std::to_string(n) + " tasks");
  if (n < 1 || k < 0 || k >= n)
    throw UsageError("--shard auto: the " + source + " gives shard " + std::to_string(k) + " of " + std::to_string(n) +
                     ", which is not 0 <= K < N");
  return {static_cast<int>(k), static_cast<int>(n), source};
}

Shard from_slurm(const Environment& env, long id, std::optional<int> shards) {
  // With --shards N the task IDs are the shard numbers, whatever part of the array was submitted:
  // a task resubmitted alone (sbatch --array=2) keeps its shard.
  if (shards)
    return checked(id, *shards, std::nullopt,
                   "Slurm job array (" + var("SLURM_ARRAY_TASK_ID", id) + ", --shards " + std::to_string(*shards) + ")");
  const auto min = number(env, "SLURM_ARRAY_TASK_MIN");
  const auto max = number(env, "SLURM_ARRAY_TASK_MAX");
  const auto count = number(env, "SLURM_ARRAY_TASK_COUNT");
  const auto step = number(env, "SLURM_ARRAY_TASK_STEP");
  if (min && max) {
    const long s = step.value_or(1);
    if (s < 1) throw UsageError("--shard auto: SLURM_ARRAY_TASK_STEP=0 is not a step");
    if (*max < *min || id < *min || id > *max || (id - *min) % s != 0)
      throw UsageError("--shard auto: " + var("SLURM_ARRAY_TASK_ID", id) + " is not a task of the array " +
                       std::to_string(*min) + "-" + std::to_string(*max) + (s == 1 ? "" : ":" + std::to_string(s)));
    const long n = (*max - *min) / s + 1;
    std::string source = "Slurm job array (" + var("SLURM_ARRAY_TASK_ID", id) + ", " + var("SLURM_ARRAY_TASK_MIN", *min) +
                         ", " + var("SLURM_ARRAY_TASK_MAX", *max) + (step ? ", " + var("SLURM_ARRAY_TASK_STEP", s) : "") + ")";
    if (count && *count != n)
      throw UsageError("--shard auto: the Slurm array's task IDs are not evenly spaced (" +
                       var("SLURM_ARRAY_TASK_COUNT", *count) + ", but " + std::to_string(*min) + "-" + std::to_string(*max) +
                       (s == 1 ? "" : ":" + std::to_string(s)) + " holds " + std::to_string(n) +
                       "); submit the array as --array=0-" + std::to_string(*count - 1) + " or pass --shard K/N");
    return checked((id - *min) / s, n, shards, source);
  }
  if (count)
    return checked(id, *count, shards,
                   "Slurm job array (" + var("SLURM_ARRAY_TASK_ID", id) + ", " + var("SLURM_ARRAY_TASK_COUNT", *count) + ")");
  throw UsageError("--shard auto: " + var("SLURM_ARRAY_TASK_ID", id) +
                   " is set, but neither SLURM_ARRAY_TASK_MIN/MAX nor SLURM_ARRAY_TASK_COUNT, which give the number of "
                   "tasks; pass --shard K/N");
}

Shard from_kubernetes(const Environment& env, long index, std::optional<int> shards) {
  const std::string source = "Kubernetes Indexed Job (" + var("JOB_COMPLETION_INDEX", index);
  if (shards) return checked(index, *shards, std::nullopt, source + ", --shards " + std::to_string(*shards) + ")");
  if (const auto n = number(env, "AUGMENT_SHARDS")) return checked(index, *n, std::nullopt, source + ", " + var("AUGMENT_SHARDS", *n) + ")");
  throw UsageError("--shard auto: " + var("JOB_COMPLETION_INDEX", index) +
                   " is set, but not the number of shards: pass --shards N (the Job's completions) or set AUGMENT_SHARDS");
}

}  // namespace

Environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

Shard parse_shard(const std::string& text, std::optional<int> shards, const Environment& env) {
  if (shards && *shards < 1) throw UsageError("--shards " + std::to_string(*shards) + ": expected a number of shards >= 1");
  if (text == "auto") {
    if (const auto id = number(env, "SLURM_ARRAY_TASK_ID")) return from_slurm(env, *id, shards);
    if (const auto index = number(env, "JOB_COMPLETION_INDEX")) return from_kubernetes(env, *index, shards);
    throw UsageError(std::string("--shard auto: not in a job array: ") + kLookedFor + "; pass --shard K/N otherwise");
  }
  if (shards) throw UsageError("--shards is the number of shards for --shard auto; --shard " + text + " gives its own");
  const auto slash = text.find('/');
  const auto k = slash == std::string::npos ? std::nullopt : whole(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : whole(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *k >= *n)
    throw UsageError("--shard " + text + ": expected K/N with 0 <= K < N, e.g. 0/4, or auto (docs/cluster.md)");
  return {static_cast<int>(*k), static_cast<int>(*n), "--shard " + text};
}

}  // namespace aug
