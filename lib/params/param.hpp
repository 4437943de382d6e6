// A parameter's one declaration. A stage declares each parameter once, as a Param<V> (V: the type
// the stage reads it as) or a Choice<E> (a word from a vocabulary, read as the enum E); the same
// object goes into the StageSpec (validation, describe, schema, docs, generated tests) and is what
// the stage reads its value with: StageConfig::get(kSigma). Names, types and enum spellings are
// thus written once.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/rng.hpp"
#include "lib/params/spec.hpp"

namespace aug {

struct NumberParam {
  double lo = 0, hi = 0;
  bool is_range = false;
  bool written_as_range = false;  // given as [lo, hi] (even [v, v]), not as one number
  double sample(Draws& d) const { return is_range ? d.uniform(lo, hi) : lo; }
};

struct IntegerParam {
  std::int64_t lo = 0, hi = 0;
  bool is_range = false;
  std::int64_t sample(Draws& d) const { return is_range ? d.integer(lo, hi) : lo; }
  // Odd sizes (kernel sizes, lo and hi odd): one of lo, lo + 2, ..., hi, each as likely.
  std::int64_t sample_odd(Draws& d) const { return is_range ? lo + 2 * d.integer(0, (hi - lo) / 2) : lo; }
};

struct EnumParam {
  std::vector<std::string> options;
  const std::string& sample(Draws& d) const {
    return options.size() == 1 ? options[0] : options[static_cast<std::size_t>(d.integer(0, options.size() - 1))];
  }
};

using IntPair = std::array<std::int64_t, 2>;
using NumberPair = std::array<double, 2>;

template <class V> constexpr ParamType param_type_of();
template <> constexpr ParamType param_type_of<NumberParam>() { return ParamType::Number; }
template <> constexpr ParamType param_type_of<IntegerParam>() { return ParamType::Integer; }
template <> constexpr ParamType param_type_of<IntPair>() { return ParamType::IntPair; }
template <> constexpr ParamType param_type_of<NumberPair>() { return ParamType::NumberPair; }
template <> constexpr ParamType param_type_of<std::vector<std::int64_t>>() { return ParamType::IntList; }
template <> constexpr ParamType param_type_of<std::vector<double>>() { return ParamType::NumberList; }
template <> constexpr ParamType param_type_of<bool>() { return ParamType::Bool; }

// A parameter read as V; its ParamType follows from V.
template <class V>
struct Param : ParamSpec {
  explicit Param(ParamSpec s) : ParamSpec(std::move(s)) { type = param_type_of<V>(); }
};

// The spellings of an enum, each written once: what users write and what the manifest records.
template <class E>
struct Words {
  std::vector<std::pair<E, std::string>> list;

  const std::string& name(E e) const {
    for (const auto& [v, w] : list)
      if (v == e) return w;
    throw std::logic_error("a value without a word");
  }
  E parse(const std::string& word) const {
    for (const auto& [v, w] : list)
      if (w == word) return v;
    throw std::logic_error("unknown word " + word);  // validation accepted only declared words
  }
};

// A Choice's value as validated: one word, or a list to draw one from per image.
template <class E>
struct Drawn {
  std::vector<E> options;
  E sample(Draws& d) const {
    return options.size() == 1 ? options[0] : options[static_cast<std::size_t>(d.integer(0, options.size() - 1))];
  }
};

// A parameter that takes words of `words`: those in `allowed` (all when empty), `def` the default.
template <class E>
struct Choice : ParamSpec {
  const Words<E>* words;

  Choice(const Words<E>& w, std::initializer_list<E> allowed, ParamSpec s) : ParamSpec(std::move(s)), words(&w) {
    type = ParamType::Enum;
    for (E e : allowed) choices.push_back(w.name(e));
    if (choices.empty())
      for (const auto& item : w.list) choices.push_back(item.second);
  }
  Choice(const Words<E>& w, std::initializer_list<E> allowed, E def, ParamSpec s) : Choice(w, allowed, std::move(s)) {
    default_value = w.name(def);
  }
};

}  // namespace aug
