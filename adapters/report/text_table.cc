#include "text_table.h"

#include <algorithm>
#include <cstdint>

namespace allocore::adapters::internal {
namespace {

std::vector<std::string_view> SplitLines(std::string_view cell) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (true) {
    size_t end = cell.find('\n', start);
    if (end == std::string_view::npos) {
      lines.push_back(cell.substr(start));
      return lines;
    }
    lines.push_back(cell.substr(start, end - start));
    start = end + 1;
  }
}

// Control characters (names may hold any byte: NUL, ESC) would reach the terminal raw and
// could rewrite it; they are shown as \xNN instead.
std::string Printable(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    auto byte = static_cast<uint8_t>(c);
    if (byte < 0x20 || byte == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> PrintableLines(std::string_view cell) {
  std::vector<std::string> lines;
  for (std::string_view line : SplitLines(cell)) lines.push_back(Printable(line));
  return lines;
}

void AppendPadding(std::string* out, size_t count) { out->append(count, ' '); }

void TrimTrailingBlanks(std::string* out, size_t line_start) {
  size_t end = out->size();
  while (end > line_start && (*out)[end - 1] == ' ') --end;
  out->resize(end);
}

}  // namespace

size_t DisplayWidth(std::string_view text) {
  size_t width = 0;
  for (char c : text) {
    if ((static_cast<uint8_t>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

void TextTable::DropEmptyColumns() {
  for (size_t column = columns_.size(); column-- > 0;) {
    bool empty = std::all_of(rows_.begin(), rows_.end(), [&](const std::vector<std::string>& row) {
      return row[column].empty();
    });
    if (!empty) continue;
    columns_.erase(columns_.begin() + static_cast<std::ptrdiff_t>(column));
    for (std::vector<std::string>& row : rows_) {
      row.erase(row.begin() + static_cast<std::ptrdiff_t>(column));
    }
  }
}

void TextTable::Render(std::string* out, std::string_view indent) const {
  const size_t n = columns_.size();
  std::vector<size_t> widths(n);
  for (size_t c = 0; c < n; ++c) widths[c] = DisplayWidth(columns_[c].header);
  // Every cell as printable lines, once.
  std::vector<std::vector<std::vector<std::string>>> printable(rows_.size());
  for (size_t r = 0; r < rows_.size(); ++r) {
    printable[r].resize(n);
    for (size_t c = 0; c < n; ++c) {
      printable[r][c] = PrintableLines(rows_[r][c]);
      for (const std::string& line : printable[r][c]) {
        widths[c] = std::max(widths[c], DisplayWidth(line));
      }
    }
  }
  auto emit_line = [&](const std::vector<std::string_view>& cells) {
    size_t line_start = out->size();
    out->append(indent);
    for (size_t c = 0; c < n; ++c) {
      if (c > 0) out->append("  ");
      size_t pad = widths[c] - DisplayWidth(cells[c]);
      if (columns_[c].align == Align::kRight) AppendPadding(out, pad);
      out->append(cells[c]);
      if (columns_[c].align == Align::kLeft) AppendPadding(out, pad);
    }
    TrimTrailingBlanks(out, line_start);
    out->push_back('\n');
  };
  std::vector<std::string_view> cells(n);
  for (size_t c = 0; c < n; ++c) cells[c] = columns_[c].header;
  emit_line(cells);
  for (const std::vector<std::vector<std::string>>& lines : printable) {
    size_t height = 1;
    for (size_t c = 0; c < n; ++c) height = std::max(height, lines[c].size());
    for (size_t l = 0; l < height; ++l) {
      for (size_t c = 0; c < n; ++c) {
        cells[c] = l < lines[c].size() ? std::string_view(lines[c][l]) : std::string_view();
      }
      emit_line(cells);
    }
  }
}

}  // namespace allocore::adapters::internal
