// adapters/report/text_table.h — internal: aligned plain-text tables for humans.
//
// Columns are separated by two spaces and padded to the widest cell (display width counts
// UTF-8 code points, so box-drawing characters line up). A cell may hold several lines
// ('\n'): the row then spans that many lines, the other cells blank. Trailing blanks are
// trimmed from every line. Control characters in cells are shown as \xNN.
#ifndef ALLOCORE_ADAPTERS_REPORT_TEXT_TABLE_H_
#define ALLOCORE_ADAPTERS_REPORT_TEXT_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

namespace allocore::adapters::internal {

// Display width of UTF-8 text: one per code point.
size_t DisplayWidth(std::string_view text);

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align = Align::kLeft;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // REQUIRES: cells.size() == number of columns.
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  size_t rows() const { return rows_.size(); }

  // Drops columns whose cells are all empty (the header does not count).
  void DropEmptyColumns();

  // Every line starts with `indent`; ends with '\n'.
  void Render(std::string* out, std::string_view indent = "") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace allocore::adapters::internal

#endif  // ALLOCORE_ADAPTERS_REPORT_TEXT_TABLE_H_
