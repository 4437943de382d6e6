// The members of a kernel functor or argument record, by name: what the emulated device names
// when a launch carries a pointer it must not (e.g. "member in.data of TablePixel<unsigned char>").
//
//   struct TablePixel { View<const T> in; View<T> out; const T* table;
//                       AUG_FIELDS(TablePixel, in, out, table) ... };
//
// Every kernel functor declares its members (for_2d / for_1d refuse one that does not), and so
// does every class type among them, down to scalars and pointers: the emulated device checks each
// pointer member, wherever it is nested, for memory a kernel must not read and for the alignment
// of what it points to, and names it. The list is proved complete when it compiles: every member,
// in declaration order, each where the one before it ends (alignment padding aside), the last
// where the struct ends. An array member holds scalars only (a pointer inside an array could not
// be checked).
#pragma once

#include <cstddef>
#include <type_traits>

namespace aug::k {

struct FieldList;

struct Field {
  const char* name = nullptr;
  std::size_t offset = 0, size = 0, align = 1;
  std::size_t pointee_align = 1;    // a pointer: the alignment of what it points to
  FieldList (*nested)() = nullptr;  // the member's own fields, when its type declares them
  bool pointer = false;             // a pointer: what the emulated device checks
};

struct FieldList {
  static constexpr int kMax = 16;
  Field fields[kMax];
};

template <class T, class = void>
struct NestedFields {
  static constexpr bool declared = false;
  static constexpr FieldList (*get)() = nullptr;
};
template <class T>
struct NestedFields<T, std::void_t<decltype(T::aug_fields())>> {
  static constexpr bool declared = true;
  static constexpr FieldList (*get)() = &T::aug_fields;
};

// One member of type T. A member of class type must declare its own fields (or be empty), so
// that every pointer a functor carries is known by its type, never guessed from its value.
template <class T>
constexpr std::size_t pointee_alignment() {
  if constexpr (std::is_pointer_v<T> && !std::is_void_v<std::remove_pointer_t<T>> &&
                !std::is_function_v<std::remove_pointer_t<T>>)
    return alignof(std::remove_pointer_t<T>);
  else
    return 1;
}
// Whether a member of type T holds a pointer, itself or in a member, an element, a member's member.
template <class T>
constexpr bool holds_pointers() {
  if constexpr (std::is_pointer_v<T>) return true;
  else if constexpr (std::is_array_v<T>) return holds_pointers<std::remove_all_extents_t<T>>();
  else if constexpr (NestedFields<T>::declared) return T::aug_holds_pointers();
  else return false;
}

template <class T>
constexpr Field make_field(const char* name, std::size_t offset) {
  static_assert(!std::is_class_v<T> || std::is_empty_v<T> || NestedFields<T>::declared,
                "a member of class type declares its own fields with AUG_FIELDS");
  static_assert(!std::is_array_v<T> || !holds_pointers<T>(),
                "an array member holds no pointer, however deeply nested: the emulated device cannot check a "
                "pointer inside an array (give each pointer a member of its own)");
  return Field{name, offset, sizeof(T), alignof(T), pointee_alignment<T>(), NestedFields<T>::get, std::is_pointer_v<T>};
}

// Whether `list` names every member of a struct of `size` bytes and alignment `align`: each
// field starts where the one before it ends, rounded up to its alignment, and the last ends where
// the struct does (rounded up to its alignment). A member left out leaves a gap that padding
// cannot explain (a left-out byte-sized member that fits in padding would pass; a pointer cannot).
constexpr bool fields_cover(const FieldList& list, std::size_t size, std::size_t align) {
  std::size_t end = 0;
  for (const Field& f : list.fields) {
    if (!f.name) break;
    if (f.offset != (end + f.align - 1) / f.align * f.align) return false;
    end = f.offset + f.size;
  }
  return (end + align - 1) / align * align == size;
}

// Whether a type declares its fields (a type trait: comparing the function pointer below with
// null is not a constant expression under every sanitizer).
template <class F>
inline constexpr bool declares_fields = NestedFields<F>::declared;

// The declared fields of a functor type F, or nullptr.
template <class F>
constexpr FieldList (*fields_of())() {
  return NestedFields<F>::get;
}

}  // namespace aug::k

#define AUG_FIELD_(m) ::aug::k::make_field<decltype(Self_::m)>(#m, offsetof(Self_, m)),
#define AUG_HOLDS_(m) ::aug::k::holds_pointers<decltype(Self_::m)>() ||
#define AUG_FE_1(f, a) f(a)
#define AUG_FE_2(f, a, ...) f(a) AUG_FE_1(f, __VA_ARGS__)
#define AUG_FE_3(f, a, ...) f(a) AUG_FE_2(f, __VA_ARGS__)
#define AUG_FE_4(f, a, ...) f(a) AUG_FE_3(f, __VA_ARGS__)
#define AUG_FE_5(f, a, ...) f(a) AUG_FE_4(f, __VA_ARGS__)
#define AUG_FE_6(f, a, ...) f(a) AUG_FE_5(f, __VA_ARGS__)
#define AUG_FE_7(f, a, ...) f(a) AUG_FE_6(f, __VA_ARGS__)
#define AUG_FE_8(f, a, ...) f(a) AUG_FE_7(f, __VA_ARGS__)
#define AUG_FE_9(f, a, ...) f(a) AUG_FE_8(f, __VA_ARGS__)
#define AUG_FE_10(f, a, ...) f(a) AUG_FE_9(f, __VA_ARGS__)
#define AUG_FE_11(f, a, ...) f(a) AUG_FE_10(f, __VA_ARGS__)
#define AUG_FE_12(f, a, ...) f(a) AUG_FE_11(f, __VA_ARGS__)
#define AUG_FE_13(f, a, ...) f(a) AUG_FE_12(f, __VA_ARGS__)
#define AUG_FE_14(f, a, ...) f(a) AUG_FE_13(f, __VA_ARGS__)
#define AUG_FE_15(f, a, ...) f(a) AUG_FE_14(f, __VA_ARGS__)
#define AUG_FE_16(f, a, ...) f(a) AUG_FE_15(f, __VA_ARGS__)
#define AUG_FE_PICK(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define AUG_FOR_EACH(f, ...)                                                                                       \
  AUG_FE_PICK(__VA_ARGS__, AUG_FE_16, AUG_FE_15, AUG_FE_14, AUG_FE_13, AUG_FE_12, AUG_FE_11, AUG_FE_10, AUG_FE_9, \
              AUG_FE_8, AUG_FE_7, AUG_FE_6, AUG_FE_5, AUG_FE_4, AUG_FE_3, AUG_FE_2, AUG_FE_1, unused)(f, __VA_ARGS__)

// Inside a struct's body: names its members (up to 16) for the emulated device's messages.
#define AUG_FIELDS(Type, ...)                                                                             \
  static constexpr bool aug_holds_pointers() {                                                            \
    using Self_ = Type;                                                                                   \
    return AUG_FOR_EACH(AUG_HOLDS_, __VA_ARGS__) false;                                                   \
  }                                                                                                       \
  static ::aug::k::FieldList aug_fields() {                                                               \
    using Self_ = Type;                                                                                   \
    constexpr ::aug::k::FieldList list{{AUG_FOR_EACH(AUG_FIELD_, __VA_ARGS__)}};                          \
    static_assert(::aug::k::fields_cover(list, sizeof(Self_), alignof(Self_)),                            \
                  "AUG_FIELDS(" #Type ", ...) must name every member, in the order they are declared");   \
    (void)aug_holds_pointers; /* used by enclosing records only: nvcc would warn it is unreferenced */    \
    return list;                                                                                          \
  }
