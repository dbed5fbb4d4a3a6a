#pragma once
// A record's JSON members, listed once: KG_JSON_MEMBERS(Type, a, b, c)
// defines
//   for_each_member(record, visit)  ->  visit("a", record.a); visit("b", record.b); ...
// for a `Type` record, const or not. Its writer and its strict reader
// (json_reader.hpp's read_value) both walk that one list, so the two cannot
// drift apart, and a member's JSON name is its C++ name, so neither can they.
// Use it in the namespace where the record's writer and reader look it up.
#include <concepts>
#include <type_traits>

// The preprocessor does not recurse, so a list is walked by rescanning: each
// step leaves behind the name of the next one, which the following rescan of
// KG_DETAIL_RESCAN expands. 4^4 = 256 rescans: more members than a record has.
#define KG_DETAIL_RESCAN(...) \
  KG_DETAIL_RESCAN_3(KG_DETAIL_RESCAN_3(KG_DETAIL_RESCAN_3(KG_DETAIL_RESCAN_3(__VA_ARGS__))))
#define KG_DETAIL_RESCAN_3(...) \
  KG_DETAIL_RESCAN_2(KG_DETAIL_RESCAN_2(KG_DETAIL_RESCAN_2(KG_DETAIL_RESCAN_2(__VA_ARGS__))))
#define KG_DETAIL_RESCAN_2(...) \
  KG_DETAIL_RESCAN_1(KG_DETAIL_RESCAN_1(KG_DETAIL_RESCAN_1(KG_DETAIL_RESCAN_1(__VA_ARGS__))))
#define KG_DETAIL_RESCAN_1(...) __VA_ARGS__

#define KG_DETAIL_VISIT_EACH(first, ...) \
  visit(#first, record.first);           \
  __VA_OPT__(KG_DETAIL_VISIT_NEXT KG_DETAIL_PARENS (__VA_ARGS__))
// Not `KG_DETAIL_VISIT_NEXT()` above: that would expand at once, inside the
// expansion of KG_DETAIL_VISIT_EACH, where the name may not expand again.
#define KG_DETAIL_PARENS ()
#define KG_DETAIL_VISIT_NEXT() KG_DETAIL_VISIT_EACH

#define KG_JSON_MEMBERS(Type, ...)                                            \
  template <typename Record, typename Visit>                                  \
    requires std::same_as<std::remove_const_t<Record>, Type>                  \
  void for_each_member(Record& record, Visit&& visit) {                       \
    KG_DETAIL_RESCAN(KG_DETAIL_VISIT_EACH(__VA_ARGS__))                       \
  }
