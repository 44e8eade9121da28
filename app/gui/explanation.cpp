#include "app/gui/explanation.h"

#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "engine/base/input_file.h"
#include "engine/demos/registry.h"

namespace asyncscope::app {

std::vector<ExplanationBlock> parse_explanation(const std::string& markdown) {
  std::vector<ExplanationBlock> blocks;
  std::istringstream in(markdown);
  std::string line;
  bool open = false;  // the last block still takes continuation lines
  while (std::getline(in, line)) {
    std::string clean;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '`') continue;
      if (line.compare(i, 2, "**") == 0) {
        ++i;
        continue;
      }
      clean += line[i];
    }
    const size_t first = clean.find_first_not_of(' ');
    if (clean.rfind("# ", 0) == 0) continue;
    if (first == std::string::npos) {
      open = false;
      continue;
    }
    if (clean.compare(first, 2, "- ") == 0) {
      blocks.push_back({true, clean.substr(first + 2)});
      open = true;
    } else if (open) {
      blocks.back().text.push_back(' ');
      blocks.back().text.append(clean, first, std::string::npos);
    } else {
      blocks.push_back({false, clean.substr(first)});
      open = true;
    }
  }
  return blocks;
}

Explanations::Explanations() {
  std::vector<std::filesystem::path> roots;
  if (const char* env = std::getenv("ASYNCSCOPE_ASSETS"); env && *env) roots.emplace_back(env);
  roots.emplace_back(ASYNCSCOPE_ASSETS_DIR);
  for (const auto& demo : demos::all_demos()) {
    for (const auto& root : roots) {
      try {
        blocks_[demo->name()] = parse_explanation(read_whole_file((root / "demos" / (demo->name() + ".md")).string()));
        break;
      } catch (const std::invalid_argument&) {
        // Not in this root: the next one, or no explanation.
      }
    }
  }
}

const std::vector<ExplanationBlock>* Explanations::find(const std::string& program) const {
  const auto it = blocks_.find(program);
  return it == blocks_.end() ? nullptr : &it->second;
}

void draw_explanation(const std::vector<ExplanationBlock>& blocks) {
  for (const ExplanationBlock& b : blocks) {
    if (b.bullet) {
      ImGui::Bullet();
      ImGui::SameLine();
    } else {
      ImGui::Spacing();
    }
    ImGui::TextWrapped("%s", b.text.c_str());
  }
}

}  // namespace asyncscope::app
