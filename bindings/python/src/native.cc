// allocore._native — the Python package's extension: pybind11 over the C ABI alone
// (liballocore_c.so: allocore/c.h, c_scenario.h). Nothing C++ of allocore is linked in.
//
// Rules kept here:
// - Every C error becomes the allocore.Error subclass of its code (the classes are defined in
//   allocore/_errors.py and handed over by allocore/__init__.py through _init).
// - A kernel is guarded by its own mutex, so that Python threads calling one kernel take turns
//   (the C kernel is not thread-safe). A thread holding the GIL never blocks on that mutex: it
//   tries it, and only when another thread has it does it release the GIL and wait. Long calls
//   (schedule, fork, snapshots, run, report) run with the GIL released.
// - A closed kernel never reaches C: its calls raise allocore.ClosedError.
// - Strings go in as (pointer, length) where the C ABI has a *_n call; names come out decoded
//   as UTF-8 with surrogateescape, so that any byte survives the round trip.
// - Decisions are read in bulk: allocore_decisions_export fills a chunk of records and their
//   names per C call. A DecisionBatch keeps the exported records and names themselves (in
//   memory recycled from batch to batch) and makes Python objects of them only when asked.
#include <Python.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "allocore/c.h"
#include "allocore/c_scenario.h"

namespace py = pybind11;

namespace {

// --- Python objects handed over by allocore/__init__.py (strong references, never freed: they
// live as long as the interpreter, and freeing them at exit would race its teardown) ---------
PyObject* g_error_base = nullptr;
PyObject* g_error_by_code[17] = {};
PyObject* g_closed_error = nullptr;
PyObject* g_decision_class = nullptr;  // the Decision namedtuple
PyObject* g_decision_types[8] = {};    // DecisionType members by type number
PyObject* g_release_names[8] = {};     // "released", ... by ALLOCORE_RELEASE_*
PyObject* g_state_names[16] = {};      // "New", ... by ALLOCORE_STATE_*
PyObject* g_empty = nullptr;           // ""
constexpr size_t kDecisionFields = 18;

void require_init() {
  if (g_decision_class == nullptr) {
    throw std::runtime_error("allocore._native used before allocore/__init__.py initialised it");
  }
}

// Raises the allocore.Error subclass of a C error message and frees it.
[[noreturn]] void raise_c_error(char* err) {
  int code = allocore_error_code(err);
  PyObject* cls = (code > 0 && code < 17 && g_error_by_code[code] != nullptr)
                      ? g_error_by_code[code]
                      : (g_error_base != nullptr ? g_error_base : PyExc_RuntimeError);
  PyObject* message =
      PyUnicode_DecodeUTF8(err, static_cast<Py_ssize_t>(std::strlen(err)), "surrogateescape");
  allocore_free(err);
  if (message == nullptr) throw py::error_already_set();
  PyErr_SetObject(cls, message);
  Py_DECREF(message);
  throw py::error_already_set();
}

inline void check(char* err) {
  if (err != nullptr) raise_c_error(err);
}

[[noreturn]] void raise_python(PyObject* cls, const std::string& message) {
  PyErr_SetString(cls != nullptr ? cls : PyExc_RuntimeError, message.c_str());
  throw py::error_already_set();
}

[[noreturn]] void raise_invalid(const std::string& message) {
  raise_python(g_error_by_code[ALLOCORE_ERR_INVALID_ARGUMENT], message);
}

// --- strings in ------------------------------------------------------------------------------
// A str (UTF-8, surrogateescape so that names read out of decisions go back in unchanged) or
// bytes, viewed without a copy where Python allows. `keep` holds an encoded copy when one was
// needed.
struct Text {
  const char* data = nullptr;
  size_t size = 0;
  py::object keep;
  bool null = false;  // None

  // NUL-terminated for the C calls without a length; embedded NULs are refused there.
  const char* c_str(const char* what) const {
    if (null) return nullptr;
    if (std::memchr(data, '\0', size) != nullptr) {
      raise_invalid(std::string("INVALID_ARGUMENT: ") + what + ": a NUL byte in the string");
    }
    return data;
  }
};

Text text(py::handle h, const char* what, bool allow_none = false) {
  Text t;
  PyObject* o = h.ptr();
  if (o == Py_None) {
    if (!allow_none) raise_python(PyExc_TypeError, std::string(what) + ": expected str, got None");
    t.null = true;
    t.data = "";
    return t;
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* p = PyUnicode_AsUTF8AndSize(o, &n);
    if (p == nullptr) {  // lone surrogates: encode them back to the bytes they stand for
      PyErr_Clear();
      PyObject* b = PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape");
      if (b == nullptr) throw py::error_already_set();
      t.keep = py::reinterpret_steal<py::object>(b);
      t.data = PyBytes_AS_STRING(b);
      t.size = static_cast<size_t>(PyBytes_GET_SIZE(b));
      return t;
    }
    t.data = p;
    t.size = static_cast<size_t>(n);
    return t;
  }
  if (PyBytes_Check(o)) {
    t.data = PyBytes_AS_STRING(o);
    t.size = static_cast<size_t>(PyBytes_GET_SIZE(o));
    return t;
  }
  if (PyObject_HasAttrString(o, "__fspath__")) {  // os.PathLike
    py::object s = py::module_::import("os").attr("fsdecode")(h);
    Text inner = text(s, what);
    inner.keep = inner.keep ? inner.keep : s;
    return inner;
  }
  raise_python(PyExc_TypeError,
               std::string(what) + ": expected str or bytes, got " + Py_TYPE(o)->tp_name);
}

int64_t to_int64(PyObject* o, const char* what) {
  if (!PyLong_Check(o)) {
    raise_python(PyExc_TypeError, std::string(what) + ": expected int, got " + Py_TYPE(o)->tp_name);
  }
  long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  return static_cast<int64_t>(v);
}

// Calls add(type, len, value) for every item of a resources mapping.
template <typename F>
void for_each_resource(py::handle resources, const char* what, F&& add) {
  if (resources.is_none()) return;
  py::dict d = PyDict_Check(resources.ptr())
                   ? py::reinterpret_borrow<py::dict>(resources)
                   : py::dict(py::reinterpret_borrow<py::object>(resources));
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(d.ptr(), &pos, &key, &value)) {
    Text type = text(key, what);
    add(type, to_int64(value, what));
  }
}

// --- strings out -----------------------------------------------------------------------------
// A new reference, or nullptr with the Python error set (out of memory).
PyObject* decode(const char* p, size_t n) {
  if (n == 0) {
    Py_INCREF(g_empty);
    return g_empty;
  }
  return PyUnicode_DecodeUTF8(p, static_cast<Py_ssize_t>(n), "surrogateescape");
}

py::str str_of(const char* p) {
  if (p == nullptr) p = "";
  PyObject* s = decode(p, std::strlen(p));
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// Names repeat from one decision to the next (partition, queue, application, node): each name
// field remembers its last name and str, and a decision naming the same gives that str again
// instead of decoding it anew. Keyed by content, a field's entry is never stale, so a kernel
// keeps it from one read to the next. (A hash table over all names measured slower than
// decoding: short ASCII names decode in about 15 ns.) Used with the GIL held.
class NameCache {
 public:
  static constexpr size_t kFields = 10;
  NameCache() = default;
  NameCache(const NameCache&) = delete;
  NameCache& operator=(const NameCache&) = delete;
  ~NameCache() {
    for (Last& l : last_) Py_XDECREF(l.value);
  }
  // A new reference, or nullptr with the Python error set.
  PyObject* get(size_t field, const char* p, size_t n) {
    if (n == 0) {
      Py_INCREF(g_empty);
      return g_empty;
    }
    Last& l = last_[field];
    if (l.value != nullptr && l.size == n && std::memcmp(l.bytes, p, n) == 0) {
      Py_INCREF(l.value);
      return l.value;
    }
    PyObject* v = decode(p, n);
    if (v == nullptr || n > kMaxCached) return v;
    PyObject* old = l.value;
    std::memcpy(l.bytes, p, n);
    l.size = n;
    Py_INCREF(v);
    l.value = v;
    Py_XDECREF(old);
    return v;
  }

 private:
  static constexpr size_t kMaxCached = 64;
  struct Last {
    PyObject* value = nullptr;
    size_t size = 0;
    char bytes[kMaxCached];
  };
  Last last_[kFields];
};

PyObject* type_object(int32_t type) {
  PyObject* o = (type >= 0 && type < 8 && g_decision_types[type] != nullptr)
                    ? g_decision_types[type]
                    : nullptr;
  if (o == nullptr) return PyLong_FromLong(type);
  Py_INCREF(o);
  return o;
}

PyObject* table_name(PyObject* const* table, size_t size, int value, bool applies) {
  PyObject* o = (applies && value >= 0 && static_cast<size_t>(value) < size && table[value])
                    ? table[value]
                    : g_empty;
  Py_INCREF(o);
  return o;
}

// A Decision namedtuple from its 18 items (references stolen). Built as tuple.__new__ builds a
// tuple subclass: tp_alloc, then the items.
PyObject* make_decision(PyObject* (&items)[kDecisionFields]) {
  for (PyObject* o : items) {
    if (o == nullptr) {
      for (PyObject* x : items) Py_XDECREF(x);
      throw py::error_already_set();
    }
  }
  auto* cls = reinterpret_cast<PyTypeObject*>(g_decision_class);
  PyObject* t = cls->tp_alloc(cls, static_cast<Py_ssize_t>(kDecisionFields));
  if (t == nullptr) {
    for (PyObject* o : items) Py_XDECREF(o);
    throw py::error_already_set();
  }
  for (size_t i = 0; i < kDecisionFields; ++i)
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), items[i]);
  // Its items are strings, ints and the DecisionType singletons: the tuple can be in no
  // reference cycle, so the collector need not scan it (CPython untracks such tuples itself,
  // later, one collection at a time).
  PyObject_GC_UnTrack(t);
  return t;
}

// --- bulk export ------------------------------------------------------------------------------
// Reads decisions [0, count) through allocore_decisions_export in chunks and calls
// f(record, names) for each. Caller holds whatever lock guards `decisions`.
struct ExportBuffers {
  std::vector<allocore_decision_record_t> records = std::vector<allocore_decision_record_t>(1024);
  std::vector<char> names = std::vector<char>(64 * 1024);
};

template <typename F>
void export_all(const allocore_decisions_t* decisions, ExportBuffers& buf, F&& f) {
  size_t total = allocore_decisions_count(decisions);
  size_t first = 0;
  while (first < total) {
    size_t used = 0;
    char* err = nullptr;
    size_t n = allocore_decisions_export(decisions, first, buf.records.data(), buf.records.size(),
                                         buf.names.data(), buf.names.size(), &used, &err);
    if (err != nullptr) {
      // One decision's names exceed the buffer: grow it (up to the C limit) and retry.
      if (allocore_error_code(err) == ALLOCORE_ERR_OUT_OF_RANGE &&
          buf.names.size() < (size_t{1} << 32)) {
        allocore_free(err);
        buf.names.resize(buf.names.size() * 4);
        continue;
      }
      raise_c_error(err);
    }
    if (n == 0) {
      raise_python(g_error_by_code[ALLOCORE_ERR_INTERNAL],
                   "INTERNAL: allocore_decisions_export: no record written before the end of the "
                   "list");
    }
    for (size_t i = 0; i < n; ++i) f(buf.records[i], buf.names.data());
    first += n;
  }
}

// The name fields, as NameCache knows them.
enum NameField {
  kPartition,
  kQueue,
  kApp,
  kAsk,
  kNode,
  kReason,
  kReplaces,
  kByApp,
  kByAsk,
  kByQueue
};

inline PyObject* span_name(NameCache& cache, NameField field, const char* names,
                           allocore_span_t s) {
  return cache.get(field, names + s.offset, s.len);
}

// Field `f` of a record, in Decision's order (a new reference, or nullptr with the error set).
PyObject* record_field(const allocore_decision_record_t& r, const char* names, NameCache& cache,
                       size_t f) {
  switch (f) {
    case 0:
      return type_object(r.type);
    case 1:
      return span_name(cache, kPartition, names, r.partition);
    case 2:
      return span_name(cache, kQueue, names, r.queue);
    case 3:
      return span_name(cache, kApp, names, r.app);
    case 4:
      return decode(names + r.ask.offset, r.ask.len);  // mostly new ids: not cached
    case 5:
      return span_name(cache, kNode, names, r.node);
    case 6:
      return PyLong_FromLong(r.priority);
    case 7:
      return PyLong_FromLongLong(r.seq);
    case 8:
      return PyLong_FromLongLong(r.count);
    case 9:
      return PyBool_FromLong(r.placeholder);
    case 10:
      return table_name(g_release_names, 8, r.release_reason,
                        r.type == ALLOCORE_RELEASE || r.type == ALLOCORE_ASK_REMOVED);
    case 11:
      return table_name(g_state_names, 16, r.from_state, r.type == ALLOCORE_APP_STATE);
    case 12:
      return table_name(g_state_names, 16, r.to_state, r.type == ALLOCORE_APP_STATE);
    case 13:
      return span_name(cache, kReason, names, r.reason);
    case 14:
      return decode(names + r.replaces.offset, r.replaces.len);
    case 15:
      return span_name(cache, kByApp, names, r.by_app);
    case 16:
      return decode(names + r.by_ask.offset, r.by_ask.len);
    case 17:
      return span_name(cache, kByQueue, names, r.by_queue);
    default:
      break;
  }
  PyErr_SetString(PyExc_IndexError, "no such decision field");
  return nullptr;
}

// The whole Decision (record_field's cases, written out: a loop over the switch measured
// 30 ns slower per decision).
PyObject* record_to_decision(const allocore_decision_record_t& r, const char* names,
                             NameCache& cache) {
  bool released = r.type == ALLOCORE_RELEASE || r.type == ALLOCORE_ASK_REMOVED;
  bool state = r.type == ALLOCORE_APP_STATE;
  PyObject* items[kDecisionFields] = {
      type_object(r.type),
      span_name(cache, kPartition, names, r.partition),
      span_name(cache, kQueue, names, r.queue),
      span_name(cache, kApp, names, r.app),
      decode(names + r.ask.offset, r.ask.len),
      span_name(cache, kNode, names, r.node),
      PyLong_FromLong(r.priority),
      PyLong_FromLongLong(r.seq),
      PyLong_FromLongLong(r.count),
      PyBool_FromLong(r.placeholder),
      table_name(g_release_names, 8, r.release_reason, released),
      table_name(g_state_names, 16, r.from_state, state),
      table_name(g_state_names, 16, r.to_state, state),
      span_name(cache, kReason, names, r.reason),
      decode(names + r.replaces.offset, r.replaces.len),
      span_name(cache, kByApp, names, r.by_app),
      decode(names + r.by_ask.offset, r.by_ask.len),
      span_name(cache, kByQueue, names, r.by_queue),
  };
  return make_decision(items);
}

// A plain tuple of the fields `fields` (indexes in Decision's order).
PyObject* record_to_row(const allocore_decision_record_t& r, const char* names, NameCache& cache,
                        const std::vector<size_t>& fields) {
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(fields.size()));
  if (t == nullptr) throw py::error_already_set();
  for (size_t i = 0; i < fields.size(); ++i) {
    PyObject* item = record_field(r, names, cache, fields[i]);
    if (item == nullptr) {
      Py_DECREF(t);
      throw py::error_already_set();
    }
    PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), item);
  }
  PyObject_GC_UnTrack(t);  // strings and ints only: no cycle (see make_decision)
  return t;
}

// Every decision, or those whose type's bit is set in `types`.
constexpr uint32_t kAllTypes = 0xffffffffu;

// Decisions (or plain tuples of `fields`) of `total` records, which for_each(f) hands over
// one at a time as f(record, names).
template <typename ForEach>
py::list records_to_list(size_t total, ForEach&& for_each, NameCache& cache, uint32_t types,
                         const std::vector<size_t>* fields) {
  auto make = [&](const allocore_decision_record_t& r, const char* names) {
    return fields != nullptr ? record_to_row(r, names, cache, *fields)
                             : record_to_decision(r, names, cache);
  };
  if (types == kAllTypes) {
    PyObject* list = PyList_New(static_cast<Py_ssize_t>(total));
    if (list == nullptr) throw py::error_already_set();
    py::list result = py::reinterpret_steal<py::list>(list);
    Py_ssize_t i = 0;
    for_each([&](const allocore_decision_record_t& r, const char* names) {
      PyList_SET_ITEM(list, i++, make(r, names));
    });
    return result;
  }
  py::list result;
  for_each([&](const allocore_decision_record_t& r, const char* names) {
    if (r.type < 0 || r.type >= 32 || (types & (1u << r.type)) == 0) return;
    PyObject* d = make(r, names);
    int failed = PyList_Append(result.ptr(), d);
    Py_DECREF(d);
    if (failed != 0) throw py::error_already_set();
  });
  return result;
}

py::list decisions_to_list(const allocore_decisions_t* decisions, ExportBuffers& buf,
                           NameCache& cache, uint32_t types = kAllTypes,
                           const std::vector<size_t>* fields = nullptr) {
  return records_to_list(
      allocore_decisions_count(decisions), [&](auto&& f) { export_all(decisions, buf, f); }, cache,
      types, fields);
}

// Field names (Decision._fields) to their indexes; None: no selection.
std::optional<std::vector<size_t>> field_indexes(py::handle fields) {
  if (fields.is_none()) return std::nullopt;
  py::tuple all = py::reinterpret_borrow<py::object>(g_decision_class).attr("_fields");
  std::vector<size_t> out;
  for (py::handle f : fields) {
    bool found = false;
    for (size_t i = 0; i < all.size(); ++i) {
      if (py::reinterpret_borrow<py::object>(f).equal(all[i])) {
        out.push_back(i);
        found = true;
        break;
      }
    }
    if (!found) {
      raise_python(PyExc_ValueError,
                   "fields: " + py::repr(f).cast<std::string>() + " is not a Decision field");
    }
  }
  return out;
}

uint32_t type_mask(py::handle types) {
  if (types.is_none()) return kAllTypes;
  uint32_t mask = 0;
  for (py::handle t : types) {
    int64_t v = to_int64(t.ptr(), "types");
    if (v < 0 || v >= 32) raise_python(PyExc_ValueError, "types: not a decision type");
    mask |= 1u << v;
  }
  return mask;
}

// The name fields' per-decision accessors (one signature), by their index in Decision.
constexpr std::pair<size_t, const char* (*)(const allocore_decisions_t*, size_t, size_t*)>
    kNameAccessors[] = {{1, allocore_decision_partition}, {2, allocore_decision_queue},
                        {3, allocore_decision_app},       {4, allocore_decision_ask},
                        {5, allocore_decision_node},      {13, allocore_decision_reason},
                        {14, allocore_decision_replaces}, {15, allocore_decision_by_app},
                        {16, allocore_decision_by_ask},   {17, allocore_decision_by_queue}};

// The same list through the per-decision accessors (one C call per field): what the bulk
// export replaces. Kept for the test that both read the same, and for the measurement.
py::list decisions_to_list_per_call(const allocore_decisions_t* decisions) {
  size_t total = allocore_decisions_count(decisions);
  py::list result(total);
  auto named = [](const char* p, size_t n) { return decode(p != nullptr ? p : "", p ? n : 0); };
  auto plain = [](const char* p) { return decode(p != nullptr ? p : "", p ? std::strlen(p) : 0); };
  for (size_t i = 0; i < total; ++i) {
    int type = allocore_decision_type(decisions, i);
    PyObject* items[kDecisionFields];
    items[0] = type_object(type);
    for (const auto& [item, get] : kNameAccessors) {
      size_t n = 0;
      const char* p = get(decisions, i, &n);
      items[item] = named(p, n);
    }
    items[6] = PyLong_FromLong(allocore_decision_priority(decisions, i));
    items[7] = PyLong_FromLongLong(allocore_decision_seq(decisions, i));
    items[8] = PyLong_FromLongLong(allocore_decision_count(decisions, i));
    items[9] = PyBool_FromLong(allocore_decision_placeholder(decisions, i));
    // The accessors answer for every decision (the zero value's name where the field does
    // not apply); Decision keeps "" there, as the bulk reading does.
    bool released = type == ALLOCORE_RELEASE || type == ALLOCORE_ASK_REMOVED;
    bool state = type == ALLOCORE_APP_STATE;
    items[10] = plain(released ? allocore_decision_release_reason(decisions, i) : "");
    items[11] = plain(state ? allocore_decision_from_state(decisions, i) : "");
    items[12] = plain(state ? allocore_decision_to_state(decisions, i) : "");
    PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(i), make_decision(items));
  }
  return result;
}

// A numpy structured array of the decisions (aligned fields): numbers as numbers, names as
// Python str objects (dtype object), or no name columns at all with names=False. `steps`, when
// given, adds the run's step of each decision.
const char* const kNameFields[] = {"partition", "queue",    "app",    "ask",    "node",
                                   "reason",    "replaces", "by_app", "by_ask", "by_queue"};

// The array's dtype and its field offsets, built once per form (names or not, steps or not)
// and kept for the interpreter's life.
struct ArrayLayout {
  PyObject* dtype = nullptr;
  size_t itemsize = 0;
  size_t o_type, o_priority, o_seq, o_count, o_placeholder, o_release, o_from, o_to, o_app_h,
      o_ask_h, o_node_h, o_step = 0;
  size_t o_names[10] = {};
};

const ArrayLayout& array_layout(bool with_names, bool with_steps) {
  static ArrayLayout layouts[4];
  ArrayLayout& l = layouts[(with_names ? 1 : 0) + (with_steps ? 2 : 0)];
  if (l.dtype != nullptr) return l;
  py::module_ np = py::module_::import("numpy");
  py::list fields;
  auto field = [&](const char* name, const char* type) {
    fields.append(py::make_tuple(name, type));
  };
  field("type", "i4");
  field("priority", "i4");
  field("seq", "i8");
  field("count", "i8");
  field("placeholder", "?");
  field("release_reason", "u1");
  field("from_state", "u1");
  field("to_state", "u1");
  fields.append(py::make_tuple("app_handle", "u4", 4));
  fields.append(py::make_tuple("ask_handle", "u4", 4));
  fields.append(py::make_tuple("node_handle", "u4", 4));
  if (with_steps) field("step", "i8");
  if (with_names) {
    for (const char* name : kNameFields) field(name, "O");
  }
  py::object dtype = np.attr("dtype")(fields, py::arg("align") = true);
  py::dict offsets_of = dtype.attr("fields");
  auto offset = [&](const char* name) {
    return offsets_of[name].cast<py::tuple>()[1].cast<size_t>();
  };
  l.o_type = offset("type");
  l.o_priority = offset("priority");
  l.o_seq = offset("seq");
  l.o_count = offset("count");
  l.o_placeholder = offset("placeholder");
  l.o_release = offset("release_reason");
  l.o_from = offset("from_state");
  l.o_to = offset("to_state");
  l.o_app_h = offset("app_handle");
  l.o_ask_h = offset("ask_handle");
  l.o_node_h = offset("node_handle");
  if (with_steps) l.o_step = offset("step");
  if (with_names) {
    for (size_t k = 0; k < 10; ++k) l.o_names[k] = offset(kNameFields[k]);
  }
  l.itemsize = dtype.attr("itemsize").cast<size_t>();
  l.dtype = dtype.release().ptr();
  return l;
}

py::object decisions_to_array(const allocore_decisions_t* decisions, ExportBuffers& buf,
                              NameCache& cache, bool with_names,
                              const std::vector<int64_t>* steps) {
  const ArrayLayout& l = array_layout(with_names, steps != nullptr);
  size_t total = allocore_decisions_count(decisions);
  // PyArray_NewFromDescr: zeroed memory for a dtype with object fields (NULL reads as None),
  // where numpy.empty would store None in every field first, one at a time.
  py::array array(py::reinterpret_borrow<py::dtype>(l.dtype),
                  std::vector<py::ssize_t>{static_cast<py::ssize_t>(total)});
  const size_t o_type = l.o_type, o_priority = l.o_priority, o_seq = l.o_seq, o_count = l.o_count,
               o_placeholder = l.o_placeholder, o_release = l.o_release, o_from = l.o_from,
               o_to = l.o_to, o_app_h = l.o_app_h, o_ask_h = l.o_ask_h, o_node_h = l.o_node_h,
               o_step = l.o_step;
  const size_t* o_names = l.o_names;
  const size_t itemsize = l.itemsize;
  char* base = static_cast<char*>(array.mutable_data());
  size_t i = 0;
  export_all(decisions, buf, [&](const allocore_decision_record_t& r, const char* names) {
    char* row = base + i * itemsize;
    std::memcpy(row + o_type, &r.type, 4);
    std::memcpy(row + o_priority, &r.priority, 4);
    std::memcpy(row + o_seq, &r.seq, 8);
    std::memcpy(row + o_count, &r.count, 8);
    row[o_placeholder] = r.placeholder != 0 ? 1 : 0;
    std::memcpy(row + o_release, &r.release_reason, 1);
    std::memcpy(row + o_from, &r.from_state, 1);
    std::memcpy(row + o_to, &r.to_state, 1);
    std::memcpy(row + o_app_h, &r.app_handle, 16);
    std::memcpy(row + o_ask_h, &r.ask_handle, 16);
    std::memcpy(row + o_node_h, &r.node_handle, 16);
    if (steps != nullptr) {
      int64_t step = i < steps->size() ? (*steps)[i] : 0;
      std::memcpy(row + o_step, &step, 8);
    }
    if (with_names) {
      const allocore_span_t spans[10] = {r.partition, r.queue,    r.app,    r.ask,    r.node,
                                         r.reason,    r.replaces, r.by_app, r.by_ask, r.by_queue};
      for (size_t k = 0; k < 10; ++k) {
        PyObject* s = span_name(cache, static_cast<NameField>(k), names, spans[k]);
        if (s == nullptr) throw py::error_already_set();
        PyObject* old = nullptr;
        std::memcpy(&old, row + o_names[k], sizeof old);
        std::memcpy(row + o_names[k], &s, sizeof s);
        Py_XDECREF(old);
      }
    }
    ++i;
  });
  return array;
}

// --- decision batches ------------------------------------------------------------------------
// A DecisionBatch holds exported records (allocore_decision_record_t) and the names they point
// into, in memory it owns, and makes a Python object of a decision or a field only when asked:
// the fast form of reading decisions. numpy views its records without a copy.
using Record = allocore_decision_record_t;

// The record's fields, in c.h's order; every byte of a record is in one of them (checked
// below), so a field added to c.h stops the build here until it is listed.
// clang-format off
#define ALLOCORE_RECORD_FIELDS(X)                                                               \
  X(type) X(priority) X(seq) X(count) X(placeholder) X(release_reason) X(from_state)           \
  X(to_state) X(reserved) X(app_handle) X(ask_handle) X(node_handle) X(partition) X(queue)     \
  X(app) X(ask) X(node) X(reason) X(replaces) X(by_app) X(by_ask) X(by_queue)
// clang-format on
#define ALLOCORE_HANDLE_FIELDS(X) X(partition_index) X(partition_serial) X(slot) X(generation)
#define ALLOCORE_SPAN_FIELDS(X) X(offset) X(len)

#define ALLOCORE_SIZE_OF(f) +sizeof(Record::f)
static_assert(0 ALLOCORE_RECORD_FIELDS(ALLOCORE_SIZE_OF) == sizeof(Record),
              "allocore_decision_record_t has a field (or padding) ALLOCORE_RECORD_FIELDS lacks");
#undef ALLOCORE_SIZE_OF
static_assert(std::is_standard_layout_v<Record> && std::is_trivially_copyable_v<Record>);
static_assert(sizeof(allocore_handle_t) == 4 * sizeof(uint32_t));
static_assert(sizeof(allocore_span_t) == 2 * sizeof(uint32_t));

// A field's numpy type: "i4", "u1", ... (native byte order), or "handle" / "span" for the
// nested structs.
template <typename T>
std::string field_code() {
  if constexpr (std::is_same_v<T, allocore_handle_t>) {
    return "handle";
  } else if constexpr (std::is_same_v<T, allocore_span_t>) {
    return "span";
  } else {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    return (std::is_signed_v<T> ? "i" : "u") + std::to_string(sizeof(T));
  }
}

// The layout of the record and of its nested structs, from offsetof and the member types:
// {"record": (size, [(name, offset, code), ...]), "handle": ..., "span": ...}. allocore/
// _batch.py builds DecisionBatch.records' dtype from it.
py::dict decision_record_layout() {
  py::dict layout;
  py::list fields;
#define ALLOCORE_ENTRY(f) \
  fields.append(py::make_tuple(#f, offsetof(S, f), field_code<decltype(S::f)>()));
  {
    using S = Record;
    ALLOCORE_RECORD_FIELDS(ALLOCORE_ENTRY)
    layout["record"] = py::make_tuple(sizeof(S), fields);
  }
  fields = py::list();
  {
    using S = allocore_handle_t;
    ALLOCORE_HANDLE_FIELDS(ALLOCORE_ENTRY)
    layout["handle"] = py::make_tuple(sizeof(S), fields);
  }
  fields = py::list();
  {
    using S = allocore_span_t;
    ALLOCORE_SPAN_FIELDS(ALLOCORE_ENTRY)
    layout["span"] = py::make_tuple(sizeof(S), fields);
  }
#undef ALLOCORE_ENTRY
  return layout;
}

// The name spans of a record, in NameField's order.
constexpr allocore_span_t Record::*kSpans[NameCache::kFields] = {
    &Record::partition, &Record::queue,    &Record::app,    &Record::ask,    &Record::node,
    &Record::reason,    &Record::replaces, &Record::by_app, &Record::by_ask, &Record::by_queue};

PyObject* g_records_view = nullptr;  // allocore._batch._records_view: records -> numpy array

// Batches of this many decisions or more are exported with the GIL released.
constexpr size_t kExportWithoutGil = 4096;

// Memory for batches' records and names. A freed batch's blocks are kept for the next batches:
// a manager takes a batch every few rounds, and the memory of the batches it dropped is more
// likely in the caches than what malloc hands out (bench/churn.py: 10 to 15 ns less per
// decision, a point or more of the schedule time). Never destroyed (batches may be freed late
// in the interpreter's exit); it keeps at most kMaxBlocks blocks, kMaxBytes in all.
class BlockPool {
 public:
  struct Block {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };

  static BlockPool& get() {
    static BlockPool* pool = new BlockPool();
    return *pool;
  }

  // A block of at least `size` bytes: the smallest kept one that fits and is not much larger,
  // else a new one (with an eighth more room, so that batches of about the same size share
  // blocks).
  Block take(size_t size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t best = blocks_.size();
      for (size_t i = 0; i < blocks_.size(); ++i) {
        const size_t s = blocks_[i].size;
        if (s >= size && s <= 2 * size + 4096 &&
            (best == blocks_.size() || s < blocks_[best].size)) {
          best = i;
        }
      }
      if (best < blocks_.size()) {
        Block b = std::move(blocks_[best]);
        blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
        bytes_ -= b.size;
        return b;
      }
    }
    size += size / 8;
    size = (size + 4095) / 4096 * 4096;
    return {std::make_unique_for_overwrite<char[]>(size), size};
  }

  // Keeps `b` for a later take (the most recent first), or frees it.
  void give(Block b) {
    if (!b.data || b.size > kMaxBytes / 4) return;
    std::lock_guard<std::mutex> lock(mu_);
    bytes_ += b.size;
    blocks_.push_back(std::move(b));
    while (blocks_.size() > kMaxBlocks || bytes_ > kMaxBytes) {
      bytes_ -= blocks_.front().size;
      blocks_.erase(blocks_.begin());
    }
  }

 private:
  static constexpr size_t kMaxBlocks = 8;
  static constexpr size_t kMaxBytes = size_t{32} << 20;
  std::mutex mu_;
  std::vector<Block> blocks_;
  size_t bytes_ = 0;
};
using Block = BlockPool::Block;

// A batch's records once numpy views them: the buffer numpy.frombuffer reads (read-only bytes),
// kept alive by the array as long as it lives.
struct RecordsMemory {
  Block block;
  size_t size;
  RecordsMemory(Block b, size_t n) : block(std::move(b)), size(n) {}
  RecordsMemory(const RecordsMemory&) = delete;
  RecordsMemory& operator=(const RecordsMemory&) = delete;
  ~RecordsMemory() { BlockPool::get().give(std::move(block)); }
};

class DecisionBatch {
 public:
  DecisionBatch() = default;
  DecisionBatch(const DecisionBatch&) = delete;
  DecisionBatch& operator=(const DecisionBatch&) = delete;
  ~DecisionBatch() {
    BlockPool::get().give(std::move(records_));
    BlockPool::get().give(std::move(names_));
  }

  // Every decision of `decisions` (they are left there: a take clears them after). Records go
  // straight into the batch's memory, names into one buffer sized from `names_hint` (the names
  // bytes per decision of the previous batch, updated here): one export call when it fits.
  static std::unique_ptr<DecisionBatch> export_from(const allocore_decisions_t* decisions,
                                                    size_t& names_hint) {
    auto batch = std::make_unique<DecisionBatch>();
    const size_t total = allocore_decisions_count(decisions);
    if (total == 0) return batch;
    if (total > static_cast<size_t>(PY_SSIZE_T_MAX) / sizeof(Record)) {
      raise_python(PyExc_MemoryError, "too many decisions for one batch");
    }
    batch->records_ = BlockPool::get().take(total * sizeof(Record));
    batch->records_ptr_ = reinterpret_cast<Record*>(batch->records_.data.get());
    batch->count_ = total;
    Failure failure;
    if (total >= kExportWithoutGil) {
      py::gil_scoped_release release;
      failure = batch->fill(decisions, names_hint);
    } else {
      failure = batch->fill(decisions, names_hint);
    }
    if (failure.c_error != nullptr) raise_c_error(failure.c_error);
    if (failure.message != nullptr) {
      raise_python(g_error_by_code[ALLOCORE_ERR_OUT_OF_RANGE], failure.message);
    }
    return batch;
  }

  size_t size() const { return count_; }
  const Record* records() const { return records_ptr_; }

  // Python's index (negative from the end) to a record's, or IndexError.
  size_t index(int64_t i) const {
    const auto n = static_cast<int64_t>(count_);
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw py::index_error("DecisionBatch index out of range");
    return static_cast<size_t>(i);
  }

  py::object decision_at(size_t i) {
    PyObject* d = record_to_decision(records_ptr_[i], names(), cache());
    return py::reinterpret_steal<py::object>(d);
  }
  py::object decision(int64_t i) { return decision_at(index(i)); }

  py::list slice(const py::slice& s) {
    size_t start = 0, stop = 0, step = 0, length = 0;
    if (!s.compute(count_, &start, &stop, &step, &length)) throw py::error_already_set();
    py::list result(length);
    for (size_t k = 0; k < length; ++k) {
      PyObject* d = record_to_decision(records_ptr_[start], names(), cache());
      PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(k), d);
      start += step;
    }
    return result;
  }

  // Field `f` (Decision's order) of decision i.
  py::object field(int64_t i, size_t f) {
    PyObject* v = record_field(records_ptr_[index(i)], names(), cache(), f);
    if (v == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(v);
  }

  py::list to_list(py::handle types, py::handle fields) {
    uint32_t mask = type_mask(types);
    std::optional<std::vector<size_t>> selected = field_indexes(fields);
    const Record* r = records_ptr_;
    const char* n = names();
    return records_to_list(
        count_,
        [&](auto&& f) {
          for (size_t i = 0; i < count_; ++i) f(r[i], n);
        },
        cache(), mask, selected ? &*selected : nullptr);
  }

  // One Decision field of every decision, or of those `index` selects, as a list.
  py::list column(const std::string& name, py::handle index) {
    const size_t field = field_index(name);
    const Record* r = records_ptr_;
    const char* n = names();
    NameCache& c = cache();
    auto fill = [&](size_t count, auto&& at) {
      PyObject* list = PyList_New(static_cast<Py_ssize_t>(count));
      if (list == nullptr) throw py::error_already_set();
      py::list result = py::reinterpret_steal<py::list>(list);
      for (size_t k = 0; k < count; ++k) {
        PyObject* v = record_field(r[at(k)], n, c, field);
        if (v == nullptr) throw py::error_already_set();
        PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k), v);
      }
      return result;
    };
    if (index.is_none()) return fill(count_, [](size_t k) { return k; });
    std::vector<size_t> selected = indexes(index);
    return fill(selected.size(), [&](size_t k) { return selected[k]; });
  }

  // The numpy view, made once. The records move to a RecordsMemory the array keeps alive, so
  // that the array may outlive the batch (and the batch does not keep itself alive through its
  // own view); records_ptr_ still points at them. Between the move and memory_'s assignment
  // no Python code runs (a RecordsMemory is not collected by the GC, so making one cannot start
  // a collection), so no other thread sees the records moved but memory_ unset.
  py::object records_array() {
    if (!view_) {
      if (!memory_) {
        auto memory = std::make_unique<RecordsMemory>(std::move(records_), count_ * sizeof(Record));
        memory_ = py::cast(std::move(memory));
      }
      view_ = py::reinterpret_borrow<py::object>(g_records_view)(memory_, count_);
    }
    return view_;
  }
  py::bytes names_bytes() const { return py::bytes(names_size_ > 0 ? names() : "", names_size_); }

 private:
  struct Failure {
    char* c_error = nullptr;        // a C error to raise
    const char* message = nullptr;  // or an OUT_OF_RANGE message
  };

  const char* names() const { return names_.data.get(); }
  NameCache& cache() {
    if (!cache_) cache_ = std::make_unique<NameCache>();
    return *cache_;
  }

  static size_t field_index(const std::string& name) {
    static const char* const kFields[kDecisionFields] = {
        "type",           "partition",  "queue",    "app",    "ask",
        "node",           "priority",   "seq",      "count",  "placeholder",
        "release_reason", "from_state", "to_state", "reason", "replaces",
        "by_app",         "by_ask",     "by_queue"};
    for (size_t f = 0; f < kDecisionFields; ++f) {
      if (name == kFields[f]) return f;
    }
    raise_python(PyExc_ValueError, "field: '" + name + "' is not a Decision field");
  }

  // Exports decisions [0, count_) into the records, their names into names_, which grows when
  // they do not fit; spans of later calls are moved to their place in the one buffer. Calls no
  // Python API: runs with or without the GIL.
  Failure fill(const allocore_decisions_t* decisions, size_t& names_hint) {
    // Spans hold 32-bit offsets into the whole buffer.
    constexpr size_t kMaxNames = std::numeric_limits<uint32_t>::max();
    const size_t total = count_;
    Record* records = records_ptr_;
    names_hint = std::min<size_t>(names_hint, 16 * 1024);
    names_ = BlockPool::get().take(std::min(kMaxNames, total * (names_hint + names_hint / 4)));
    size_t capacity = std::min(kMaxNames, names_.size);
    size_t used = 0;
    size_t first = 0;
    while (true) {
      size_t wrote = 0;
      char* err = nullptr;
      size_t n = allocore_decisions_export(decisions, first, records + first, total - first,
                                           names_.data.get() + used, capacity - used, &wrote, &err);
      if (err != nullptr) {
        // The next decision's names do not fit in what is left: grow, below.
        if (allocore_error_code(err) != ALLOCORE_ERR_OUT_OF_RANGE) return {err, nullptr};
        allocore_free(err);
        n = 0;
        wrote = 0;
      }
      if (used > 0) {
        const auto base = static_cast<uint32_t>(used);
        for (size_t i = first; i < first + n; ++i) {
          for (allocore_span_t Record::*s : kSpans) (records[i].*s).offset += base;
        }
      }
      used += wrote;
      first += n;
      if (first >= total) break;
      if (capacity == kMaxNames) {
        return {nullptr,
                "OUT_OF_RANGE: the decisions' names exceed the 4 GiB a batch can hold; take "
                "them more often, or with take_decisions()"};
      }
      // Room for the rest at the rate seen so far and a quarter more, at least twice the size.
      const size_t rate = first > 0 ? used / first + 1 : names_hint;
      Block grown = BlockPool::get().take(std::min(
          kMaxNames, std::max(2 * capacity, used + (total - first) * (rate + rate / 4) + 1024)));
      std::memcpy(grown.data.get(), names_.data.get(), used);
      BlockPool::get().give(std::exchange(names_, std::move(grown)));
      capacity = std::min(kMaxNames, names_.size);
    }
    names_size_ = used;
    names_hint = used / total + 1;
    return {};
  }

  // An index argument: integers (a sequence, or a 1-d buffer such as a numpy integer array),
  // or a numpy bool mask of the batch's length; negative integers count from the end.
  std::vector<size_t> indexes(py::handle index) const {
    std::vector<size_t> out;
    PyObject* o = index.ptr();
    if (!PyObject_CheckBuffer(o)) {
      for (py::handle h : index) {
        if (PyBool_Check(h.ptr())) {
          raise_python(PyExc_TypeError,
                       "index: booleans in a sequence; a mask must be a numpy bool array");
        }
        // Any integer (numpy's too), but no float.
        PyObject* i = PyNumber_Index(h.ptr());
        if (i == nullptr) throw py::error_already_set();
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
        Py_DECREF(i);
        if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
        if (overflow != 0) throw py::index_error("DecisionBatch index out of range");
        out.push_back(this->index(v));
      }
      return out;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_FORMAT | PyBUF_STRIDES) != 0) {
      throw py::error_already_set();
    }
    struct Release {
      Py_buffer* view;
      ~Release() { PyBuffer_Release(view); }
    } release{&view};
    if (view.ndim != 1) raise_python(PyExc_TypeError, "index: expected a 1-dimensional array");
    std::string_view format = view.format != nullptr ? view.format : "B";
    const bool little = std::endian::native == std::endian::little;
    if (!format.empty() && (format[0] == '@' || format[0] == '=' || (format[0] == '<' && little) ||
                            ((format[0] == '>' || format[0] == '!') && !little))) {
      format.remove_prefix(1);
    }
    const Py_ssize_t n = view.shape[0];
    const Py_ssize_t stride = view.strides != nullptr ? view.strides[0] : view.itemsize;
    const char* base = static_cast<const char*>(view.buf);
    auto read = [&](auto type) {
      using T = decltype(type);
      if (view.itemsize != static_cast<Py_ssize_t>(sizeof(T))) {
        raise_python(PyExc_TypeError, "index: an unexpected item size");
      }
      out.reserve(static_cast<size_t>(n));
      for (Py_ssize_t k = 0; k < n; ++k) {
        T v;
        std::memcpy(&v, base + k * stride, sizeof v);
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
          if (v > static_cast<T>(std::numeric_limits<int64_t>::max())) {
            throw py::index_error("DecisionBatch index out of range");
          }
        }
        out.push_back(this->index(static_cast<int64_t>(v)));
      }
    };
    if (format.size() != 1) {
      raise_python(PyExc_TypeError, "index: expected an array of integers or booleans, not '" +
                                        std::string(format) + "'");
    }
    switch (format[0]) {
      case '?': {
        if (view.itemsize != 1) raise_python(PyExc_TypeError, "index: an unexpected item size");
        if (static_cast<size_t>(n) != count_) {
          raise_python(PyExc_IndexError, "index: a boolean mask of " + std::to_string(n) +
                                             " items for a batch of " + std::to_string(count_));
        }
        for (Py_ssize_t k = 0; k < n; ++k) {
          if (base[k * stride] != 0) out.push_back(static_cast<size_t>(k));
        }
        return out;
      }
      case 'b':
        read(static_cast<signed char>(0));
        break;
      case 'B':
        read(static_cast<unsigned char>(0));
        break;
      case 'h':
        read(static_cast<short>(0));
        break;
      case 'H':
        read(static_cast<unsigned short>(0));
        break;
      case 'i':
        read(0);
        break;
      case 'I':
        read(0u);
        break;
      case 'l':
        read(0L);
        break;
      case 'L':
        read(0UL);
        break;
      case 'q':
        read(0LL);
        break;
      case 'Q':
        read(0ULL);
        break;
      case 'n':
        read(static_cast<Py_ssize_t>(0));
        break;
      case 'N':
        read(static_cast<size_t>(0));
        break;
      default:
        raise_python(PyExc_TypeError, "index: expected an array of integers or booleans, not '" +
                                          std::string(format) + "'");
    }
    return out;
  }

  Block records_;  // count_ records, until records_array() moves them to memory_
  Record* records_ptr_ = nullptr;
  size_t count_ = 0;
  Block names_;
  size_t names_size_ = 0;
  py::object memory_;                 // the RecordsMemory holding the records once numpy views them
  py::object view_;                   // records_array()
  std::unique_ptr<NameCache> cache_;  // made on first use
};

// Iterates a batch, making each Decision when it is reached.
struct DecisionBatchIterator {
  py::object owner;  // keeps the batch alive
  DecisionBatch* batch;
  size_t next = 0;
};

// --- handles -----------------------------------------------------------------------------------
allocore_handle_t handle_from(py::handle h, const char* what) {
  allocore_handle_t out{0, 0, ALLOCORE_NO_HANDLE, 0};
  if (h.is_none()) return out;
  py::tuple t = py::reinterpret_borrow<py::object>(h).cast<py::tuple>();
  if (t.size() != 4) raise_python(PyExc_TypeError, std::string(what) + ": a handle has 4 fields");
  uint32_t v[4];
  for (size_t i = 0; i < 4; ++i) {
    int64_t x = to_int64(t[i].ptr(), what);
    if (x < 0 || x > 0xffffffffLL)
      raise_python(PyExc_OverflowError, std::string(what) + ": out of range");
    v[i] = static_cast<uint32_t>(x);
  }
  out.partition_index = v[0];
  out.partition_serial = v[1];
  out.slot = v[2];
  out.generation = v[3];
  return out;
}

PyObject* g_handle_class = nullptr;  // the Handle namedtuple

py::object handle_to(const allocore_handle_t& h) {
  return py::reinterpret_borrow<py::object>(g_handle_class)(h.partition_index, h.partition_serial,
                                                            h.slot, h.generation);
}

// --- the kernel --------------------------------------------------------------------------------
// A kernel's (or a run's) mutex and the thread holding it.
struct Guard {
  std::mutex mu;
  std::atomic<std::thread::id> owner{};
};

// Takes a Guard. A call made while the same thread holds it (a finalizer or a signal handler
// run while a call builds Python objects) is refused instead of deadlocking.
struct Lock {
  Guard& guard;
  std::unique_lock<std::mutex> lock;
  explicit Lock(Guard& g) : guard(g), lock(g.mu, std::try_to_lock) {
    if (!lock.owns_lock()) {
      if (g.owner.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
        raise_python(g_error_by_code[ALLOCORE_ERR_FAILED_PRECONDITION],
                     "FAILED_PRECONDITION: a call on this kernel from inside another of its "
                     "calls in the same thread (a finalizer or a signal handler?)");
      }
      py::gil_scoped_release release;  // the holder may need the GIL to finish
      lock.lock();
    }
    g.owner.store(std::this_thread::get_id(), std::memory_order_relaxed);
  }
  ~Lock() { guard.owner.store(std::thread::id(), std::memory_order_relaxed); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
};

// Calls f(&err) and raises the C error it reports; returns what f returns. Whatever f holds
// (a kernel's mutex, the GIL released) is let go before the error is raised.
template <typename F>
auto checked(F&& f) {
  char* err = nullptr;
  if constexpr (std::is_void_v<std::invoke_result_t<F&, char**>>) {
    f(&err);
    check(err);
  } else {
    auto result = f(&err);
    check(err);
    return result;
  }
}

// Calls f() with the GIL released when kWithoutGil; f must not touch Python.
template <bool kWithoutGil, typename F>
auto gil_released_if(F&& f) {
  if constexpr (kWithoutGil) {
    py::gil_scoped_release release;
    return f();
  } else {
    return f();
  }
}

// checked, with the GIL released around f (a long C call that touches no Python object).
template <typename F>
auto checked_without_gil(F&& f) {
  return checked([&](char** err) { return gil_released_if<true>([&] { return f(err); }); });
}

// A quantity of a row of a C list, by resource type: its name in the row's dict and its
// accessor.
template <typename List>
struct QuantityField {
  const char* name;
  int64_t (*get)(const List*, size_t, const char*, unsigned char*);
};
constexpr QuantityField<allocore_queues_t> kQueueQuantities[] = {
    {"allocated", allocore_queue_allocated},
    {"pending", allocore_queue_pending},
    {"guaranteed", allocore_queue_guaranteed},
    {"max", allocore_queue_max}};
constexpr QuantityField<allocore_nodes_t> kNodeQuantities[] = {
    {"capacity", allocore_nodes_capacity},
    {"allocated", allocore_nodes_allocated},
    {"occupied", allocore_nodes_occupied},
    {"available", allocore_nodes_available}};
constexpr QuantityField<allocore_apps_t> kAppQuantities[] = {{"allocated", allocore_apps_allocated},
                                                             {"pending", allocore_apps_pending}};
constexpr QuantityField<allocore_allocations_t> kAllocationQuantities[] = {
    {"resources", allocore_allocations_resource}};

// A list of a partition's queues, nodes or applications: how the kernel makes it, frees it and
// counts it, what row(d, list, i) sets of an entry besides its quantities, and the quantities.
template <typename List>
struct PartitionList {
  List* (*make)(const allocore_kernel_t*, const char*, char**);
  void (*destroy)(List*);
  size_t (*count)(const List*);
  void (*row)(py::dict&, const List*, size_t);
  std::span<const QuantityField<List>> quantities;
};

void queue_row(py::dict& d, const allocore_queues_t* q, size_t i) {
  d["path"] = str_of(allocore_queue_path(q, i));
  d["leaf"] = allocore_queue_is_leaf(q, i) != 0;
  d["state"] = str_of(allocore_queue_state(q, i));
  unsigned char has_pending = 0;
  int32_t priority = allocore_queue_priority(q, i, &has_pending);
  d["priority"] = has_pending ? py::object(py::int_(priority)) : py::object(py::none());
  d["running_applications"] = allocore_queue_running_applications(q, i);
}
constexpr PartitionList<allocore_queues_t> kQueueList{allocore_list_queues, allocore_queues_destroy,
                                                      allocore_queues_count, queue_row,
                                                      kQueueQuantities};

void node_row(py::dict& d, const allocore_nodes_t* nodes, size_t i) {
  d["id"] = str_of(allocore_nodes_id(nodes, i));
  d["schedulable"] = allocore_nodes_schedulable(nodes, i) != 0;
  d["allocation_count"] = allocore_nodes_allocation_count(nodes, i);
}
constexpr PartitionList<allocore_nodes_t> kNodeList{
    allocore_list_nodes, allocore_nodes_destroy, allocore_nodes_count, node_row, kNodeQuantities};

void app_row(py::dict& d, const allocore_apps_t* apps, size_t i) {
  d["id"] = str_of(allocore_apps_id(apps, i));
  d["queue"] = str_of(allocore_apps_queue(apps, i));
  d["state"] = str_of(allocore_apps_state(apps, i));
}
constexpr PartitionList<allocore_apps_t> kAppList{allocore_list_apps, allocore_apps_destroy,
                                                  allocore_apps_count, app_row, kAppQuantities};

// C calls of one signature that one method makes for several kinds of entity.
using RemoveNamed = void (*)(allocore_kernel_t*, const char*, const char*, size_t,
                             allocore_decisions_t*, char**);
using RemoveByHandle = void (*)(allocore_kernel_t*, allocore_handle_t, allocore_decisions_t*,
                                char**);
using FindNamed = allocore_handle_t (*)(const allocore_kernel_t*, const char*, const char*, size_t,
                                        char**);

class Kernel {
 private:
  using Types = std::vector<std::string>;
  static constexpr bool kWithoutGil = true;

  // RAII for the C description objects.
  struct Node {
    allocore_node_t* node;
    Node(py::handle id, py::handle partition) {
      Text i = text(id, "id");
      node = allocore_node_create_n(i.data, i.size);
      if (!partition.is_none()) {
        Text p = text(partition, "partition");
        try {
          allocore_node_set_partition(node, p.c_str("partition"));
        } catch (...) {
          allocore_node_destroy(node);
          throw;
        }
      }
    }
    ~Node() { allocore_node_destroy(node); }
    // Adds the capacity and occupied resources (None: none); `what` names the capacity in
    // errors.
    void set_resources(py::handle capacity, py::handle occupied, const char* what = "resources") {
      for_each_resource(capacity, what, [&](const Text& t, int64_t v) {
        allocore_node_add_capacity_n(node, t.data, t.size, v);
      });
      for_each_resource(occupied, "occupied", [&](const Text& t, int64_t v) {
        allocore_node_add_occupied(node, t.c_str("occupied"), v);
      });
    }
  };
  struct App {
    allocore_app_t* app;
    explicit App(allocore_app_t* a) : app(a) {}
    ~App() { allocore_app_destroy(app); }
  };
  // An ask with what add_ask and probe both set.
  struct Ask {
    allocore_ask_t* ask;
    Ask(py::handle app, py::handle id, py::handle resources, int32_t priority,
        py::handle required_node, py::handle partition) {
      Text a = text(app, "app");
      Text i = text(id, "id");
      ask = allocore_ask_create_n(a.data, a.size, i.data, i.size);
      try {
        for_each_resource(resources, "resources", [&](const Text& t, int64_t v) {
          allocore_ask_add_resource_n(ask, t.data, t.size, v);
        });
        if (priority != 0) allocore_ask_set_priority(ask, priority);
        if (!required_node.is_none()) {
          Text t = text(required_node, "required_node");
          allocore_ask_set_required_node(ask, t.c_str("required_node"));
        }
        if (!partition.is_none()) {
          Text p = text(partition, "partition");
          allocore_ask_set_partition(ask, p.c_str("partition"));
        }
      } catch (...) {
        allocore_ask_destroy(ask);
        throw;
      }
    }
    ~Ask() { allocore_ask_destroy(ask); }
    Ask(const Ask&) = delete;
    Ask& operator=(const Ask&) = delete;
  };

  // The kernel, or ClosedError. Called with mu_ held.
  allocore_kernel_t* live() {
    if (kernel_ == nullptr) raise_python(g_closed_error, "the kernel is closed");
    return kernel_;
  }
  allocore_decisions_t* out() { return keep_ ? out_ : nullptr; }

  // Calls f(kernel, &err) with the kernel's mutex held (and the GIL released when
  // kWithoutGil: f then touches no Python object), and raises the C error it reports once the
  // mutex is let go; returns what f returns.
  template <bool kReleaseGil = false, typename F>
  auto call(F&& f) {
    return checked([&](char** err) {
      Lock l(mu_);
      allocore_kernel_t* k = live();
      return gil_released_if<kReleaseGil>([&] { return f(k, err); });
    });
  }

  // f() with the kernel's mutex held (ClosedError when closed).
  template <typename F>
  auto read(F&& f) {
    Lock l(mu_);
    live();
    return f();
  }

  // read, and the decisions not yet taken are cleared after f read them.
  template <typename F>
  auto take(F&& f) {
    return read([&] {
      auto result = f();
      allocore_decisions_clear(out_);
      return result;
    });
  }

  void remove_named(RemoveNamed remove, py::handle id, py::handle partition) {
    Text i = text(id, "id");
    Text p = text(partition, "partition", true);
    call([&](allocore_kernel_t* k, char** err) {
      remove(k, p.c_str("partition"), i.data, i.size, out(), err);
    });
  }

  void remove_by_handle(RemoveByHandle remove, py::handle entity, const char* what) {
    allocore_handle_t h = handle_from(entity, what);
    call([&](allocore_kernel_t* k, char** err) { remove(k, h, out(), err); });
  }

  py::object find_named(FindNamed find, py::handle id, py::handle partition) {
    Text i = text(id, "id");
    Text p = text(partition, "partition", true);
    return handle_to(call([&](allocore_kernel_t* k, char** err) {
      return find(k, p.c_str("partition"), i.data, i.size, err);
    }));
  }

  static Types types(const allocore_kernel_t* k) {
    Types ts;
    for (size_t i = 0, n = allocore_resource_type_count(k); i < n; ++i) {
      ts.emplace_back(allocore_resource_type_name(k, i));
    }
    return ts;
  }

  // Reads a C object the kernel makes: make(kernel, &err) makes it (with the kernel's mutex
  // held, which the reading keeps), read(object, the kernel's resource types) gives the
  // Python value, free_object frees the object.
  template <typename Make, typename Object, typename Read>
  auto query(Make&& make, void (*free_object)(Object*), Read&& read) {
    char* err = nullptr;
    Lock l(mu_);
    allocore_kernel_t* k = live();
    Object* object = make(k, &err);
    check(err);
    std::unique_ptr<Object, void (*)(Object*)> keep(object, free_object);
    return read(object, types(k));
  }

  // A list of n dicts, row(d, i) filling the i-th.
  template <typename Row>
  static py::list rows(size_t n, Row&& row) {
    py::list result;
    for (size_t i = 0; i < n; ++i) {
      py::dict d;
      row(d, i);
      result.append(d);
    }
    return result;
  }

  // {type: quantity} for the types get reports present.
  template <typename F>
  static py::dict quantities(const Types& ts, F&& get) {
    py::dict d;
    for (const std::string& t : ts) {
      unsigned char present = 0;
      int64_t v = get(t.c_str(), &present);
      if (present) d[py::str(t)] = v;
    }
    return d;
  }

  // d[name] = the quantities of row i of a list, for each field.
  template <typename List>
  static void add_quantities(py::dict& d, const Types& ts, const List* list, size_t i,
                             std::span<const QuantityField<List>> fields) {
    for (const QuantityField<List>& f : fields) {
      d[f.name] = quantities(
          ts, [&](const char* t, unsigned char* present) { return f.get(list, i, t, present); });
    }
  }

  // The rows of a list of a partition ("": the default).
  template <typename List>
  py::list partition_rows(py::handle partition, const PartitionList<List>& list) {
    Text p = text(partition, "partition", true);
    return query(
        [&](allocore_kernel_t* k, char** err) { return list.make(k, p.c_str("partition"), err); },
        list.destroy,
        [&](const List* l, const Types& ts) {
          return rows(list.count(l), [&](py::dict& d, size_t i) {
            list.row(d, l, i);
            add_quantities(d, ts, l, i, list.quantities);
          });
        });
  }

 public:
  Kernel(allocore_kernel_t* kernel, bool keep_decisions)
      : kernel_(kernel), keep_(keep_decisions), out_(allocore_decisions_create()) {}

  static std::unique_ptr<Kernel> create(py::handle config_yaml, py::handle semantics,
                                        int64_t max_applications, int64_t max_asks,
                                        int64_t max_live_allocations, py::handle source_name,
                                        bool keep_decisions) {
    require_init();
    Text yaml = text(config_yaml, "config_yaml");
    Text sem = text(semantics, "semantics", true);
    Text source = text(source_name, "source_name");
    allocore_options_t options{max_applications, max_asks, max_live_allocations,
                               sem.c_str("semantics")};
    const char* csource = source.c_str("source_name");
    return std::make_unique<Kernel>(checked_without_gil([&](char** err) {
                                      return allocore_kernel_create(yaml.data, yaml.size, csource,
                                                                    &options, err);
                                    }),
                                    keep_decisions);
  }

  static std::unique_ptr<Kernel> restore(py::bytes data, bool keep_decisions) {
    require_init();
    char* p = nullptr;
    Py_ssize_t n = 0;
    if (PyBytes_AsStringAndSize(data.ptr(), &p, &n) != 0) throw py::error_already_set();
    return std::make_unique<Kernel>(
        checked_without_gil(
            [&](char** err) { return allocore_kernel_restore(p, static_cast<size_t>(n), err); }),
        keep_decisions);
  }

  ~Kernel() { destroy(); }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  void close() {
    Lock l(mu_);
    destroy();
  }
  bool closed() {
    Lock l(mu_);
    return kernel_ == nullptr;
  }

  // --- nodes ---
  void add_node(py::handle id, py::handle resources, py::handle partition, py::handle occupied,
                bool schedulable) {
    Node node(id, partition);
    node.set_resources(resources, occupied);
    if (!schedulable) allocore_node_set_schedulable(node.node, 0);
    call([&](allocore_kernel_t* k, char** err) { allocore_add_node(k, node.node, out(), err); });
  }

  void update_node(py::handle id, py::handle capacity, py::handle partition, py::handle occupied,
                   py::handle schedulable) {
    Node node(id, partition);
    if (!capacity.is_none()) allocore_node_clear_capacity(node.node);
    if (!occupied.is_none()) allocore_node_clear_occupied(node.node);
    node.set_resources(capacity, occupied, "capacity");
    if (!schedulable.is_none()) {
      allocore_node_set_schedulable(node.node, py::cast<bool>(schedulable) ? 1 : 0);
    }
    call([&](allocore_kernel_t* k, char** err) { allocore_update_node(k, node.node, out(), err); });
  }

  void remove_node(py::handle id, py::handle partition) {
    remove_named(allocore_remove_node_n, id, partition);
  }

  // --- applications ---
  void add_app(py::handle id, py::handle queue, py::handle user, py::handle groups, py::handle tags,
               py::handle partition, py::handle gang_hard, py::handle placeholder_timeout_ms,
               py::handle placeholder_resources) {
    Text i = text(id, "id");
    Text u = text(user, "user");
    App app(allocore_app_create_n(i.data, i.size, u.data, u.size));
    if (!queue.is_none()) {
      Text q = text(queue, "queue");
      allocore_app_set_queue_n(app.app, q.data, q.size);
    }
    if (!partition.is_none()) {
      Text p = text(partition, "partition");
      allocore_app_set_partition(app.app, p.c_str("partition"));
    }
    if (!groups.is_none()) {
      for (py::handle g : groups) {
        Text t = text(g, "groups");
        allocore_app_add_group(app.app, t.c_str("groups"));
      }
    }
    if (!tags.is_none()) {
      py::dict d = py::dict(py::reinterpret_borrow<py::object>(tags));
      for (auto item : d) {
        Text k = text(item.first, "tags");
        Text v = text(item.second, "tags");
        allocore_app_add_tag(app.app, k.c_str("tags"), v.c_str("tags"));
      }
    }
    if (!gang_hard.is_none()) allocore_app_set_gang_hard(app.app, py::cast<bool>(gang_hard));
    if (!placeholder_timeout_ms.is_none()) {
      allocore_app_set_placeholder_timeout(
          app.app, to_int64(placeholder_timeout_ms.ptr(), "placeholder_timeout_ms"));
    }
    for_each_resource(
        placeholder_resources, "placeholder_resources", [&](const Text& t, int64_t v) {
          allocore_app_add_placeholder_ask(app.app, t.c_str("placeholder_resources"), v);
        });
    call([&](allocore_kernel_t* k, char** err) { allocore_add_app(k, app.app, out(), err); });
  }

  void remove_app(py::handle id, py::handle partition) {
    remove_named(allocore_remove_app_n, id, partition);
  }

  // --- asks ---
  void add_ask(py::handle app, py::handle id, py::handle resources, int32_t priority, int64_t count,
               py::handle task_group, bool placeholder, py::handle required_node,
               py::handle allow_preemption, py::handle originator, py::handle creation_time_ms,
               py::handle partition) {
    Ask ask(app, id, resources, priority, required_node, partition);
    if (count != 1) allocore_ask_set_count(ask.ask, count);
    if (!task_group.is_none()) {
      Text t = text(task_group, "task_group");
      allocore_ask_set_task_group(ask.ask, t.c_str("task_group"));
    }
    if (placeholder) allocore_ask_set_placeholder(ask.ask, 1);
    if (!allow_preemption.is_none()) {
      allocore_ask_set_allow_preemption(ask.ask, py::cast<bool>(allow_preemption) ? 1 : 0);
    }
    if (!originator.is_none()) {
      allocore_ask_set_originator(ask.ask, py::cast<bool>(originator) ? 1 : 0);
    }
    if (!creation_time_ms.is_none()) {
      allocore_ask_set_creation_time(ask.ask, to_int64(creation_time_ms.ptr(), "creation_time_ms"));
    }
    call([&](allocore_kernel_t* k, char** err) { allocore_add_ask(k, ask.ask, out(), err); });
  }

  void remove_ask(py::handle app, py::handle id, py::handle partition) {
    Text a = text(app, "app");
    Text i = text(id, "id");
    Text p = text(partition, "partition", true);
    call([&](allocore_kernel_t* k, char** err) {
      allocore_remove_ask_n(k, p.c_str("partition"), a.data, a.size, i.data, i.size, out(), err);
    });
  }

  void release(py::handle app, py::handle ask, py::handle node, int64_t seq, py::handle partition) {
    Text a = text(app, "app");
    Text k = text(ask, "ask");
    Text n = text(node, "node", true);
    Text p = text(partition, "partition", true);
    call([&](allocore_kernel_t* kernel, char** err) {
      allocore_release_allocation_n(kernel, p.c_str("partition"), a.data, a.size, k.data, k.size,
                                    n.null ? nullptr : n.data, n.size, seq, out(), err);
    });
  }

  // --- clock, scheduling, config ---
  void advance(int64_t millis) {
    call<kWithoutGil>(
        [&](allocore_kernel_t* k, char** err) { allocore_advance(k, millis, out(), err); });
  }

  int64_t now_ms() {
    Lock l(mu_);
    return allocore_now_millis(live());
  }

  int64_t schedule(int64_t max, py::handle partition) {
    Text p = text(partition, "partition", true);
    const char* part = p.c_str("partition");
    return call<kWithoutGil>([&](allocore_kernel_t* k, char** err) {
      return allocore_schedule(k, max, part, out(), err);
    });
  }

  void update_config(py::handle yaml, py::handle source_name) {
    Text y = text(yaml, "config_yaml");
    Text s = text(source_name, "source_name");
    const char* source = s.c_str("source_name");
    call<kWithoutGil>([&](allocore_kernel_t* k, char** err) {
      allocore_update_config(k, y.data, y.size, source, out(), err);
    });
  }

  // --- decisions ---
  size_t pending_decisions() {
    return read([&] { return allocore_decisions_count(out_); });
  }

  py::list take_decisions(py::handle types, py::handle fields) {
    uint32_t mask = type_mask(types);
    std::optional<std::vector<size_t>> selected = field_indexes(fields);
    return take([&] {
      return decisions_to_list(out_, buf_, cache_, mask, selected ? &*selected : nullptr);
    });
  }

  // The bulk export alone, into the reused buffers (for the measurement): the records read.
  size_t export_only() {
    return read([&] {
      size_t n = 0;
      export_all(out_, buf_, [&](const allocore_decision_record_t&, const char*) { ++n; });
      return n;
    });
  }

  py::list peek_decisions(bool bulk) {
    return read([&] {
      return bulk ? decisions_to_list(out_, buf_, cache_) : decisions_to_list_per_call(out_);
    });
  }

  py::object take_decisions_array(bool names) {
    return take([&] { return decisions_to_array(out_, buf_, cache_, names, nullptr); });
  }

  std::unique_ptr<DecisionBatch> take_decision_batch() {
    return take([&] { return DecisionBatch::export_from(out_, names_hint_); });
  }

  std::unique_ptr<DecisionBatch> peek_decision_batch() {
    return read([&] { return DecisionBatch::export_from(out_, names_hint_); });
  }

  void clear_decisions() {
    read([&] { allocore_decisions_clear(out_); });
  }

  // Releases the kernel's unused names; the decisions not yet taken name them, so they are
  // taken (and cleared) first and returned.
  py::tuple release_unused_names() {
    return read([&] {
      py::list taken = decisions_to_list(out_, buf_, cache_);
      allocore_decisions_clear(out_);
      return py::make_tuple(allocore_release_unused_names(kernel_), taken);
    });
  }

  // --- snapshots and forks ---
  py::bytes snapshot() {
    size_t len = 0;
    char* data = call<kWithoutGil>(
        [&](allocore_kernel_t* k, char** err) { return allocore_kernel_snapshot(k, &len, err); });
    py::bytes result(data, len);
    allocore_free(data);
    return result;
  }

  std::unique_ptr<Kernel> fork() {
    return std::make_unique<Kernel>(call<kWithoutGil>(allocore_kernel_fork), keep_);
  }

  // --- recording ---
  void record_start(py::handle path, size_t buffer_bytes) {
    Text p = text(path, "path");
    call([&](allocore_kernel_t* k, char** err) {
      allocore_kernel_record_start(k, p.c_str("path"), buffer_bytes, err);
    });
  }
  void record_stop() { call(allocore_kernel_record_stop); }

  // --- queries ---
  py::list partitions() {
    return read([&] {
      py::list result;
      for (size_t i = 0, n = allocore_partition_count(kernel_); i < n; ++i) {
        result.append(str_of(allocore_partition_name(kernel_, i)));
      }
      return result;
    });
  }

  py::list resource_types() {
    return read([&] {
      py::list result;
      for (const std::string& t : types(kernel_)) result.append(str_of(t.c_str()));
      return result;
    });
  }

  py::tuple usage() {
    int64_t apps = 0, asks = 0, live_allocations = 0;
    read([&] { allocore_usage(kernel_, &apps, &asks, &live_allocations); });
    return py::make_tuple(apps, asks, live_allocations);
  }

  bool allocation_budget_blocks() {
    return read([&] { return allocore_allocation_budget_blocks(kernel_) != 0; });
  }

  void check_consistency() { call<kWithoutGil>(allocore_check_consistency); }

  py::list list_queues(py::handle partition) { return partition_rows(partition, kQueueList); }
  py::list list_nodes(py::handle partition) { return partition_rows(partition, kNodeList); }
  py::list list_apps(py::handle partition) { return partition_rows(partition, kAppList); }

  py::dict get_app(py::handle id, py::handle partition) {
    Text i = text(id, "id");
    Text p = text(partition, "partition", true);
    return query(
        [&](allocore_kernel_t* k, char** err) {
          return allocore_get_app(k, p.c_str("partition"), i.c_str("id"), err);
        },
        allocore_app_info_destroy,
        [&](const allocore_app_info_t* info, const Types& ts) {
          py::dict d;
          d["id"] = py::reinterpret_borrow<py::object>(id);
          d["queue"] = str_of(allocore_app_info_queue(info));
          d["state"] = str_of(allocore_app_info_state(info));
          d["allocated"] = quantities(ts, [&](const char* t, unsigned char* present) {
            return allocore_app_info_allocated(info, t, present);
          });
          d["pending"] = quantities(ts, [&](const char* t, unsigned char* present) {
            return allocore_app_info_pending(info, t, present);
          });
          return d;
        });
  }

  py::list list_allocations(py::handle app, py::handle node, py::handle partition) {
    Text a = text(app, "app", true);
    Text n = text(node, "node", true);
    Text p = text(partition, "partition", true);
    return query(
        [&](allocore_kernel_t* k, char** err) {
          return allocore_list_allocations(k, p.c_str("partition"), a.c_str("app"), n.c_str("node"),
                                           err);
        },
        allocore_allocations_destroy,
        [](const allocore_allocations_t* list, const Types& ts) {
          return rows(allocore_allocations_count(list), [&](py::dict& d, size_t i) {
            d["app"] = str_of(allocore_allocations_app(list, i));
            d["ask"] = str_of(allocore_allocations_ask(list, i));
            d["node"] = str_of(allocore_allocations_node(list, i));
            d["seq"] = allocore_allocations_seq(list, i);
            d["placeholder"] = allocore_allocations_placeholder(list, i) != 0;
            add_quantities<allocore_allocations_t>(d, ts, list, i, kAllocationQuantities);
          });
        });
  }

  py::list explain_pending() {
    Lock l(mu_);
    allocore_kernel_t* k = live();
    allocore_explanations_t* e =
        gil_released_if<kWithoutGil>([&] { return allocore_explain_pending(k); });
    std::unique_ptr<allocore_explanations_t, decltype(&allocore_explanations_destroy)> keep(
        e, &allocore_explanations_destroy);
    return rows(allocore_explanations_count(e), [&](py::dict& d, size_t i) {
      d["app"] = str_of(allocore_explanation_app(e, i));
      d["ask"] = str_of(allocore_explanation_ask(e, i));
      d["pending"] = allocore_explanation_pending_count(e, i);
      d["reason"] = str_of(allocore_explanation_reason(e, i));
    });
  }

  py::dict probe(py::handle app, py::handle resources, int32_t priority, py::handle required_node,
                 py::handle partition) {
    Ask ask(app, py::str(""), resources, priority, required_node, partition);
    return query([&](allocore_kernel_t* k, char** err) { return allocore_probe(k, ask.ask, err); },
                 allocore_probe_destroy,
                 [](const allocore_probe_t* pr, const Types&) {
                   py::dict d;
                   d["queue"] = str_of(allocore_probe_queue(pr));
                   const char* node = allocore_probe_node(pr);
                   d["node"] = node != nullptr ? py::object(str_of(node)) : py::object(py::none());
                   const char* reason = allocore_probe_reason(pr);
                   d["reason"] =
                       reason != nullptr ? py::object(str_of(reason)) : py::object(py::none());
                   d["preemption_victims"] = allocore_probe_preemption_victims(pr);
                   return d;
                 });
  }

  // --- by handle ---
  py::object find_app(py::handle id, py::handle partition) {
    return find_named(allocore_find_app_n, id, partition);
  }
  py::object find_ask(py::handle app, py::handle id) {
    allocore_handle_t a = handle_from(app, "app");
    Text i = text(id, "id");
    return handle_to(call([&](allocore_kernel_t* k, char** err) {
      return allocore_find_ask_n(k, a, i.data, i.size, err);
    }));
  }
  py::object find_node(py::handle id, py::handle partition) {
    return find_named(allocore_find_node_n, id, partition);
  }
  void remove_app_by_handle(py::handle app) {
    remove_by_handle(allocore_remove_app_by_handle, app, "app");
  }
  void remove_ask_by_handle(py::handle ask) {
    remove_by_handle(allocore_remove_ask_by_handle, ask, "ask");
  }
  void remove_node_by_handle(py::handle node) {
    remove_by_handle(allocore_remove_node_by_handle, node, "node");
  }
  void release_by_handle(py::handle ask, py::handle node, int64_t seq) {
    allocore_handle_t a = handle_from(ask, "ask");
    allocore_handle_t n = handle_from(node, "node");
    call([&](allocore_kernel_t* k, char** err) {
      if (seq == 0) {
        allocore_release_by_handle(k, a, n, out(), err);
      } else {
        allocore_release_by_handle_seq(k, a, n, seq, out(), err);
      }
    });
  }

 private:
  void destroy() {
    allocore_decisions_destroy(out_);
    out_ = nullptr;
    allocore_kernel_destroy(kernel_);
    kernel_ = nullptr;
  }

  Guard mu_;
  allocore_kernel_t* kernel_;
  bool keep_;
  allocore_decisions_t* out_;
  ExportBuffers buf_;
  NameCache cache_;
  size_t names_hint_ = 64;  // names bytes per decision of the last batch
};

// --- scenarios and logs --------------------------------------------------------------------
struct RunOptions {
  Text semantics;
  Text config;
  allocore_run_options_t options{};
  RunOptions(py::handle sem, py::handle config_path, int64_t max_live_allocations)
      : semantics(text(sem, "semantics", true)), config(text(config_path, "config", true)) {
    options.semantics = semantics.c_str("semantics");
    options.config_path = config.c_str("config");
    options.max_live_allocations = max_live_allocations;
  }
};

class Run {
 public:
  explicit Run(allocore_run_t* run) : run_(run) {}
  ~Run() { allocore_run_destroy(run_); }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  static std::unique_ptr<Run> file(py::handle path, py::handle semantics, py::handle config,
                                   int64_t max_live_allocations) {
    require_init();
    Text p = text(path, "path");
    const char* cpath = p.c_str("path");
    RunOptions o(semantics, config, max_live_allocations);
    return std::make_unique<Run>(
        checked_without_gil([&](char** err) { return allocore_run_file(cpath, &o.options, err); }));
  }

  int64_t steps() { return allocore_run_steps(run_); }
  size_t decision_count() { return allocore_decisions_count(allocore_run_decisions(run_)); }
  py::list decisions() {
    Lock l(mu_);  // the export buffers and the name cache
    return decisions_to_list(allocore_run_decisions(run_), buf_, cache_);
  }
  py::list decisions_per_call() { return decisions_to_list_per_call(allocore_run_decisions(run_)); }
  py::object decisions_array(bool names) {
    Lock l(mu_);
    std::vector<int64_t> s = step_vector();
    return decisions_to_array(allocore_run_decisions(run_), buf_, cache_, names, &s);
  }
  std::unique_ptr<DecisionBatch> decision_batch() {
    Lock l(mu_);
    return DecisionBatch::export_from(allocore_run_decisions(run_), names_hint_);
  }
  py::list decision_steps() {
    std::vector<int64_t> s = step_vector();
    py::list result(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      PyList_SET_ITEM(result.ptr(), static_cast<Py_ssize_t>(i), PyLong_FromLongLong(s[i]));
    }
    return result;
  }
  py::list errors() {
    py::list result;
    for (size_t i = 0, n = allocore_run_error_count(run_); i < n; ++i) {
      const char* m = allocore_run_error_message(run_, i);
      result.append(
          py::make_tuple(allocore_run_error_step(run_, i), str_of(m), allocore_error_code(m)));
    }
    return result;
  }
  // The final kernel (once); None when already taken.
  std::unique_ptr<Kernel> take_kernel(bool keep_decisions) {
    Lock l(mu_);
    allocore_kernel_t* k = allocore_run_take_kernel(run_);
    if (k == nullptr) return nullptr;
    return std::make_unique<Kernel>(k, keep_decisions);
  }

 private:
  std::vector<int64_t> step_vector() const {
    size_t n = allocore_decisions_count(allocore_run_decisions(run_));
    std::vector<int64_t> s(n);
    for (size_t i = 0; i < n; ++i) s[i] = allocore_run_decision_step(run_, i);
    return s;
  }

  allocore_run_t* run_;
  Guard mu_;
  ExportBuffers buf_;
  NameCache cache_;
  size_t names_hint_ = 64;
};

void pack_file(py::handle scenario, py::handle log, py::handle semantics) {
  Text s = text(scenario, "scenario");
  Text l = text(log, "log");
  Text sem = text(semantics, "semantics", true);
  const char* cs = s.c_str("scenario");
  const char* cl = l.c_str("log");
  const char* csem = sem.c_str("semantics");
  checked_without_gil([&](char** err) { allocore_pack_file(cs, cl, csem, err); });
}

py::str report_json(py::handle path, py::handle semantics, py::handle config,
                    int64_t max_live_allocations) {
  Text p = text(path, "path");
  const char* cpath = p.c_str("path");
  RunOptions o(semantics, config, max_live_allocations);
  size_t len = 0;
  char* json = checked_without_gil(
      [&](char** err) { return allocore_report_json(cpath, &o.options, &len, err); });
  PyObject* s = PyUnicode_DecodeUTF8(json, static_cast<Py_ssize_t>(len), "surrogateescape");
  allocore_free(json);
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

PyObject* keep(py::handle h) {
  PyObject* o = h.ptr();
  Py_INCREF(o);
  return o;
}

// Called once by allocore/__init__.py with the Python side's classes.
void init(py::handle decision_class, py::sequence decision_types, py::handle handle_class,
          py::handle error_base, py::dict errors_by_code, py::handle closed_error,
          py::handle records_view) {
  g_decision_class = keep(decision_class);
  g_records_view = keep(records_view);
  for (size_t i = 0; i < decision_types.size() && i < 8; ++i) {
    g_decision_types[i] = keep(decision_types[i]);
  }
  g_handle_class = keep(handle_class);
  g_error_base = keep(error_base);
  for (auto item : errors_by_code) {
    int code = item.first.cast<int>();
    if (code > 0 && code < 17) g_error_by_code[code] = keep(item.second);
  }
  g_closed_error = keep(closed_error);
  g_empty = PyUnicode_FromString("");
  for (int i = 0; i < 8; ++i) {
    const char* n = allocore_release_reason_name(i);
    g_release_names[i] = PyUnicode_FromString(n != nullptr ? n : "");
  }
  for (int i = 0; i < 16; ++i) {
    const char* n = allocore_app_state_name(i);
    g_state_names[i] = PyUnicode_FromString(n != nullptr ? n : "");
  }
}

}  // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "allocore's C ABI (liballocore_c.so) for the allocore package; use `allocore`.";
  m.def("_init", &init);
  m.def("version", []() { return std::string(allocore_version()); });
  m.def("release_reason_name", [](int i) { return std::string(allocore_release_reason_name(i)); });
  m.def("app_state_name", [](int i) { return std::string(allocore_app_state_name(i)); });
  m.def("error_code", [](py::handle message) {
    Text t = text(message, "message");
    return allocore_error_code(t.c_str("message"));
  });

  m.def("decision_record_layout", &decision_record_layout,
        "allocore_decision_record_t's layout from offsetof: {'record': (size, [(name, offset, "
        "code), ...]), 'handle': ..., 'span': ...}; code is a numpy type ('i4', 'u1', ...) or "
        "'handle' / 'span'.");

  py::class_<DecisionBatch> batch(m, "DecisionBatch",
                                  R"(Decisions exported in bulk, held as records.

Kernel.take_decision_batch() (and RunResult.decision_batch()) make one. The batch owns the
exported allocore_decision_record_t records and the names they point into, and stays valid
after its kernel changes or closes. Nothing per decision becomes a Python object until asked:

- records: a read-only numpy structured array over the records, without a copy (the dtype is
  allocore.decision_record_dtype(), c.h's layout: type, priority, seq, count, placeholder,
  release_reason, from_state, to_state, handles, and the names as (offset, len) spans into
  names_bytes); numpy is imported for it, and only for it;
- column(field, index=None): one Decision field of every decision (or of those at index: an
  integer sequence or array, or a bool mask) as a list; app(i), ask(i), node(i), ...: a name;
- len(batch), batch[i] (a Decision, as take_decisions() gives), batch[a:b], iteration,
  to_list(types=None, fields=None) (as take_decisions()).)");
  batch.def("__len__", &DecisionBatch::size)
      .def("__getitem__", &DecisionBatch::decision, py::arg("i"))
      .def("__getitem__", &DecisionBatch::slice, py::arg("slice"))
      .def("__iter__",
           [](py::object self) {
             return DecisionBatchIterator{self, &self.cast<DecisionBatch&>(), 0};
           })
      .def("to_list", &DecisionBatch::to_list, py::arg("types") = py::none(),
           py::arg("fields") = py::none(),
           "Every decision as a Decision (or, with fields, a plain tuple of those fields); "
           "types: only decisions of those types.")
      .def("column", &DecisionBatch::column, py::arg("field"), py::arg("index") = py::none(),
           "Decision field `field` of every decision, or of those `index` selects (integers, "
           "negative from the end, or a numpy bool mask), as a list.")
      .def_property_readonly("records", &DecisionBatch::records_array,
                             "The records as a read-only numpy structured array (no copy).")
      .def_property_readonly("names_bytes", &DecisionBatch::names_bytes,
                             "The names the records' spans point into (a copy).")
      .def("__repr__", [](const DecisionBatch& b) {
        return "<allocore.DecisionBatch of " + std::to_string(b.size()) + " decisions>";
      });
  // A name of decision i, by field: batch.app(i), batch.node(i), ...
  static const std::pair<const char*, size_t> kNameAccessors[] = {
      {"partition", 1}, {"queue", 2},     {"app", 3},     {"ask", 4},     {"node", 5},
      {"reason", 13},   {"replaces", 14}, {"by_app", 15}, {"by_ask", 16}, {"by_queue", 17}};
  for (const auto& [name, field] : kNameAccessors) {
    batch.def(
        name, [f = field](DecisionBatch& b, int64_t i) { return b.field(i, f); }, py::arg("i"));
  }
  py::class_<RecordsMemory>(m, "_RecordsMemory", py::buffer_protocol(),
                            "A DecisionBatch's records as bytes, for its numpy view.")
      .def_buffer([](RecordsMemory& r) {
        static char empty = 0;
        char* data = r.size > 0 ? r.block.data.get() : &empty;
        return py::buffer_info(data, 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(r.size)}, {py::ssize_t{1}}, true);
      });
  py::class_<DecisionBatchIterator>(m, "_DecisionBatchIterator")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](DecisionBatchIterator& it) {
        if (it.next >= it.batch->size()) throw py::stop_iteration();
        return it.batch->decision_at(it.next++);
      });

  py::class_<Kernel>(m, "Kernel", R"(A scheduling kernel (allocore_kernel_t). See help(allocore).)")
      .def(py::init(&Kernel::create), py::arg("config_yaml") = "",
           py::arg("semantics") = py::none(), py::kw_only(), py::arg("max_applications") = 0,
           py::arg("max_asks") = 0, py::arg("max_live_allocations") = 0,
           py::arg("source_name") = "queues.yaml", py::arg("keep_decisions") = true)
      .def_static("restore", &Kernel::restore, py::arg("snapshot"), py::kw_only(),
                  py::arg("keep_decisions") = true,
                  "A kernel from snapshot() bytes (InvalidArgumentError when refused).")
      .def("close", &Kernel::close, "Destroys the C kernel; later calls raise ClosedError.")
      .def_property_readonly("closed", &Kernel::closed)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](Kernel& k, py::args) {
             k.close();
             return false;
           })
      .def("add_node", &Kernel::add_node, py::arg("id"), py::arg("resources"), py::kw_only(),
           py::arg("partition") = py::none(), py::arg("occupied") = py::none(),
           py::arg("schedulable") = true)
      .def("update_node", &Kernel::update_node, py::arg("id"), py::arg("capacity") = py::none(),
           py::kw_only(), py::arg("partition") = py::none(), py::arg("occupied") = py::none(),
           py::arg("schedulable") = py::none())
      .def("remove_node", &Kernel::remove_node, py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("add_app", &Kernel::add_app, py::arg("id"), py::arg("queue") = py::none(),
           py::arg("user") = "", py::kw_only(), py::arg("groups") = py::none(),
           py::arg("tags") = py::none(), py::arg("partition") = py::none(),
           py::arg("gang_hard") = py::none(), py::arg("placeholder_timeout_ms") = py::none(),
           py::arg("placeholder_resources") = py::none())
      .def("remove_app", &Kernel::remove_app, py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("add_ask", &Kernel::add_ask, py::arg("app"), py::arg("id"), py::arg("resources"),
           py::kw_only(), py::arg("priority") = 0, py::arg("count") = 1,
           py::arg("task_group") = py::none(), py::arg("placeholder") = false,
           py::arg("required_node") = py::none(), py::arg("allow_preemption") = py::none(),
           py::arg("originator") = py::none(), py::arg("creation_time_ms") = py::none(),
           py::arg("partition") = py::none())
      .def("remove_ask", &Kernel::remove_ask, py::arg("app"), py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("release", &Kernel::release, py::arg("app"), py::arg("ask"),
           py::arg("node") = py::none(), py::arg("seq") = 0, py::kw_only(),
           py::arg("partition") = py::none())
      .def("advance", &Kernel::advance, py::arg("millis"))
      .def_property_readonly("now_ms", &Kernel::now_ms)
      .def("schedule", &Kernel::schedule, py::arg("max") = 0, py::arg("partition") = py::none(),
           "Runs scheduling cycles (max <= 0: until nothing more fits); returns the number of "
           "allocations made.")
      .def("update_config", &Kernel::update_config, py::arg("config_yaml"),
           py::arg("source_name") = "queues.yaml")
      .def_property_readonly("pending_decisions", &Kernel::pending_decisions)
      .def("take_decisions", &Kernel::take_decisions, py::arg("types") = py::none(),
           py::arg("fields") = py::none(),
           "The decisions made since the last take, read in bulk, as a list of Decision. "
           "types (DecisionType values): only decisions of those types are returned (all are "
           "taken). fields (Decision field names): plain tuples of those fields instead.")
      .def("peek_decisions", &Kernel::peek_decisions, py::arg("bulk") = true)
      .def("_export_only", &Kernel::export_only)
      .def("take_decisions_array", &Kernel::take_decisions_array, py::arg("names") = true,
           "The decisions made since the last take, as a numpy structured array.")
      .def("take_decision_batch", &Kernel::take_decision_batch,
           "The decisions made since the last take, as a DecisionBatch: their records and "
           "names exported in bulk into memory the batch owns, no Python object per decision "
           "until one is asked for. The fast form; take_decisions() is the convenient one.")
      .def("peek_decision_batch", &Kernel::peek_decision_batch,
           "As take_decision_batch(), taking nothing.")
      .def("clear_decisions", &Kernel::clear_decisions)
      .def("release_unused_names", &Kernel::release_unused_names)
      .def("snapshot", &Kernel::snapshot)
      .def("fork", &Kernel::fork)
      .def("record_start", &Kernel::record_start, py::arg("path"), py::arg("buffer_bytes") = 0)
      .def("record_stop", &Kernel::record_stop)
      .def_property_readonly("partitions", &Kernel::partitions)
      .def_property_readonly("resource_types", &Kernel::resource_types)
      .def("usage", &Kernel::usage)
      .def("allocation_budget_blocks", &Kernel::allocation_budget_blocks)
      .def("check_consistency", &Kernel::check_consistency)
      .def("list_queues", &Kernel::list_queues, py::arg("partition") = py::none())
      .def("list_nodes", &Kernel::list_nodes, py::arg("partition") = py::none())
      .def("list_apps", &Kernel::list_apps, py::arg("partition") = py::none())
      .def("get_app", &Kernel::get_app, py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("list_allocations", &Kernel::list_allocations, py::arg("app") = py::none(),
           py::arg("node") = py::none(), py::kw_only(), py::arg("partition") = py::none())
      .def("explain_pending", &Kernel::explain_pending)
      .def("probe", &Kernel::probe, py::arg("app"), py::arg("resources"), py::kw_only(),
           py::arg("priority") = 0, py::arg("required_node") = py::none(),
           py::arg("partition") = py::none())
      .def("find_app", &Kernel::find_app, py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("find_ask", &Kernel::find_ask, py::arg("app"), py::arg("id"))
      .def("find_node", &Kernel::find_node, py::arg("id"), py::kw_only(),
           py::arg("partition") = py::none())
      .def("remove_app_by_handle", &Kernel::remove_app_by_handle, py::arg("app"))
      .def("remove_ask_by_handle", &Kernel::remove_ask_by_handle, py::arg("ask"))
      .def("remove_node_by_handle", &Kernel::remove_node_by_handle, py::arg("node"))
      .def("release_by_handle", &Kernel::release_by_handle, py::arg("ask"),
           py::arg("node") = py::none(), py::arg("seq") = 0)
      .def(py::pickle([](Kernel& k) { return k.snapshot(); },
                      [](py::bytes b) { return Kernel::restore(b, true); }));

  py::class_<Run>(m, "Run")
      .def_static("file", &Run::file, py::arg("path"), py::arg("semantics") = py::none(),
                  py::arg("config") = py::none(), py::arg("max_live_allocations") = 0)
      .def_property_readonly("steps", &Run::steps)
      .def_property_readonly("decision_count", &Run::decision_count)
      .def("decisions", &Run::decisions)
      .def("decisions_per_call", &Run::decisions_per_call)
      .def("decisions_array", &Run::decisions_array, py::arg("names") = true)
      .def("decision_batch", &Run::decision_batch)
      .def("decision_steps", &Run::decision_steps)
      .def("errors", &Run::errors)
      .def("take_kernel", &Run::take_kernel, py::arg("keep_decisions") = true);

  m.def("pack_file", &pack_file, py::arg("scenario"), py::arg("log"),
        py::arg("semantics") = py::none());
  m.def("report_json", &report_json, py::arg("path"), py::arg("semantics") = py::none(),
        py::arg("config") = py::none(), py::arg("max_live_allocations") = 0);
}
