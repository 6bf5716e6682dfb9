// Queue trees as text tables and Graphviz DOT (see queue_tree_format.h).
#include "allocore/adapters/queue_tree_format.h"

#include <string>
#include <vector>

#include "allocore/adapters/decision_format.h"
#include "str_util.h"
#include "text_table.h"

namespace allocore::adapters {
namespace {

std::string_view LastElement(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? path : path.substr(dot + 1);
}

std::string_view ParentPath(std::string_view path) {
  size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
}

// is_last[i]: queue i is the last child of its parent (depth-first input).
std::vector<bool> LastChildFlags(const std::vector<QueueInfo>& queues) {
  std::vector<bool> is_last(queues.size(), true);
  for (size_t i = 0; i < queues.size(); ++i) {
    for (size_t j = i + 1; j < queues.size(); ++j) {
      if (queues[j].depth < queues[i].depth) break;
      if (queues[j].depth == queues[i].depth) {
        is_last[i] = false;
        break;
      }
    }
  }
  return is_last;
}

std::string Offset(const QueueInfo& queue) {
  if (queue.offset == 0) return "";
  return queue.offset > 0 ? internal::Cat("+", queue.offset) : internal::Cat(queue.offset);
}

std::string Notes(const QueueInfo& queue) {
  std::vector<std::string> notes;
  if (queue.fenced) notes.emplace_back("fence");
  if (queue.dynamic) notes.emplace_back("dynamic");
  if (!queue.state.empty() && queue.state != "Active") notes.push_back(queue.state);
  return internal::Join(notes, ", ");
}

std::string ResourceText(const Resource& r, const ResourceTypes& types) {
  return IsZero(r) ? "" : ToString(r, types);
}

std::string Applications(const QueueInfo& queue) {
  if (queue.max_applications > 0) {
    return internal::Cat(queue.running_applications, "/", queue.max_applications);
  }
  return queue.running_applications > 0 ? internal::Cat(queue.running_applications) : "";
}

std::string SortText(const QueueInfo& queue) {
  return queue.priority_sort_enabled ? queue.sort_policy
                                     : internal::Cat(queue.sort_policy, ", priority off");
}

// A DOT double-quoted string body: quotes and backslashes escaped, newlines as \n.
std::string DotEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

void AppendQueueTreeText(const std::vector<QueueInfo>& queues, const ResourceTypes& types,
                         QueueTreeDetail detail, std::string* out, std::string_view indent) {
  using internal::TextTable;
  const bool full = detail == QueueTreeDetail::kFull;
  std::vector<TextTable::Column> columns = {{"QUEUE"},
                                            {"PRIORITY", TextTable::Align::kRight},
                                            {"OFFSET", TextTable::Align::kRight},
                                            {"NOTES"}};
  if (full) {
    columns.insert(columns.end(), {{"SORT"},
                                   {"GUARANTEED"},
                                   {"MAX"},
                                   {"ALLOCATED"},
                                   {"PENDING"},
                                   {"APPS", TextTable::Align::kRight}});
  }
  TextTable table(std::move(columns));
  std::vector<bool> is_last = LastChildFlags(queues);
  // open[d]: an ancestor at depth d still has siblings below, so its guide line continues.
  std::vector<bool> open;
  for (size_t i = 0; i < queues.size(); ++i) {
    const QueueInfo& q = queues[i];
    const auto depth = static_cast<size_t>(q.depth < 0 ? 0 : q.depth);
    std::string name;
    for (size_t d = 1; d < depth; ++d) name += d < open.size() && open[d] ? "│  " : "   ";
    if (depth > 0) name += is_last[i] ? "└─ " : "├─ ";
    name += LastElement(q.path);
    if (open.size() <= depth) open.resize(depth + 1);
    open[depth] = !is_last[i];
    std::vector<std::string> row = {name, EffectivePriorityText(q), Offset(q), Notes(q)};
    if (full) {
      row.insert(row.end(),
                 {SortText(q), q.guaranteed ? LimitToString(*q.guaranteed, types) : "",
                  q.max ? LimitToString(*q.max, types) : "", ResourceText(q.allocated, types),
                  ResourceText(q.pending, types), Applications(q)});
    }
    table.AddRow(std::move(row));
  }
  table.DropEmptyColumns();
  table.Render(out, indent);
}

void AppendQueueTreeDot(const std::vector<PartitionQueues>& partitions, const ResourceTypes& types,
                        std::string* out) {
  *out +=
      "digraph queues {\n"
      "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, nodesep=0.3, ranksep=0.4];\n"
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
      "fontname=\"Helvetica\", fontsize=10];\n"
      "  edge [arrowhead=none, color=\"#7f7f7f\"];\n";
  for (size_t p = 0; p < partitions.size(); ++p) {
    const PartitionQueues& partition = partitions[p];
    internal::Append(out, "  subgraph \"cluster_", p, "\" {\n", "    label=\"partition ",
                     DotEscape(partition.partition), "\";\n    color=\"#bfbfbf\";\n");
    auto id = [&](std::string_view path) {
      return internal::Cat("\"", DotEscape(partition.partition), ":", DotEscape(path), "\"");
    };
    for (const QueueInfo& q : partition.queues) {
      std::vector<std::string> lines = {std::string(LastElement(q.path))};
      std::string priority = internal::Cat("priority ", EffectivePriorityText(q));
      if (q.offset != 0) internal::Append(&priority, ", offset ", Offset(q));
      if (q.fenced) priority += ", fence";
      lines.push_back(priority);
      lines.push_back(internal::Cat("sort ", SortText(q)));
      if (q.guaranteed)
        lines.push_back(internal::Cat("guaranteed ", LimitToString(*q.guaranteed, types)));
      if (q.max) lines.push_back(internal::Cat("max ", LimitToString(*q.max, types)));
      if (!IsZero(q.allocated))
        lines.push_back(internal::Cat("allocated ", ToString(q.allocated, types)));
      if (!IsZero(q.pending))
        lines.push_back(internal::Cat("pending ", ToString(q.pending, types)));
      std::string apps = Applications(q);
      if (!apps.empty()) lines.push_back(internal::Cat("apps ", apps));
      std::string notes = Notes(q);
      if (!notes.empty() && notes != "fence") lines.push_back(notes);
      std::string attributes =
          internal::Cat("label=\"", DotEscape(internal::Join(lines, "\n")), "\"");
      if (!q.is_leaf) attributes += ", fillcolor=\"#e8eef7\"";
      if (q.fenced) attributes += ", penwidth=2.5";
      if (q.dynamic) attributes += ", style=\"rounded,filled,dashed\"";
      internal::Append(out, "    ", id(q.path), " [", attributes, "];\n");
    }
    for (const QueueInfo& q : partition.queues) {
      std::string_view parent = ParentPath(q.path);
      if (!parent.empty()) internal::Append(out, "    ", id(parent), " -> ", id(q.path), ";\n");
    }
    *out += "  }\n";
  }
  *out += "}\n";
}

}  // namespace allocore::adapters
