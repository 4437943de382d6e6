// Class-balanced copies (`augment run --balance`, `--copies-per-class`): how many copies each input
// gets from the classes of its labels, instead of one --copies for every image.
//
// - `repeat-factor[:t]`: LVIS's repeat-factor sampling. f(c) is the fraction of the inputs whose
//   labels contain class c; an input's repeat factor is r = max over its classes of
//   max(1, sqrt(t / f(c))) (1 without objects), and its copies are --copies x r rounded
//   stochastically: floor, plus one with probability the fraction, drawn from the run's keyed
//   generator (seed and the input's relative path).
// - a copies-per-class file: an input gets the largest target among its classes, --copies when it
//   has none of the listed classes.
//
// The census reads the labels of the whole sorted input list, not of one shard, so every shard of a
// run plans the same copies (docs/labels.md, "Class-balanced copies").
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/datasets/format.hpp"
#include "lib/run/jobs.hpp"

namespace aug {

struct BalanceSpec {
  enum class Kind { none, repeat_factor, per_class } kind = Kind::none;
  double threshold = 0.001;                    // repeat-factor's t
  std::filesystem::path file;                  // per_class: the targets' file
  std::map<std::string, std::uint32_t> targets;  // per_class: class (id or name) -> copies

  bool on() const { return kind != Kind::none; }
  std::string describe() const;  // "repeat-factor t=0.001", "copies-per-class targets.json"
};

// `--balance repeat-factor[:t]` (t in (0, 1]). Throws UsageError naming --balance.
BalanceSpec parse_balance(const std::string& text);
// `--copies-per-class FILE`: a JSON object {"class": copies, ...} or lines "class copies" (# starts
// a comment); a class is its id or its name. Throws UsageError naming the file and line.
BalanceSpec read_copies_per_class(const std::filesystem::path& file);

struct BalanceClass {
  std::string name;            // the class's name where the dataset names it, else its id
  std::size_t images = 0;      // inputs whose labels contain it
  double input_frequency = 0;  // images / inputs
  double repeat = 1;           // repeat-factor: max(1, sqrt(t / f)); per-class: its target
  std::size_t outputs = 0;     // planned outputs whose input contains it
  double output_frequency = 0; // outputs / all planned outputs
};

struct BalancePlan {
  BalanceSpec spec;
  // Per input, in the order of the list given to plan_balance: its copies and repeat factor.
  std::vector<std::uint32_t> copies;
  std::vector<double> repeat;
  std::vector<BalanceClass> classes;  // by class id (names where the dataset has them)
  std::size_t inputs = 0, outputs = 0;
  std::size_t unreadable = 0;  // inputs whose header or labels could not be read: planned with --copies
  std::uint32_t max_copies() const;
  // The plan as a table, one line per class and a total (printed before the run, shown by --dry-run).
  std::vector<std::string> table() const;
};

BalancePlan plan_balance(const BalanceSpec& spec, const std::vector<InputFile>& inputs, const labels::Format& format,
                         std::uint32_t base_copies, std::uint64_t seed);

}  // namespace aug
