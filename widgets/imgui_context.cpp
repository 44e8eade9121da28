#include "widgets/imgui_context.h"

#include <cstdint>
#include <cstdio>

namespace asyncscope::widgets {

HeadlessContext::HeadlessContext(float width, float height) : HeadlessContext(width, height, nullptr, 0) {}

HeadlessContext::HeadlessContext(float width, float height, const char* font_file, float font_px)
    : context_(ImGui::CreateContext()) {
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(width, height);
  io.IniFilename = nullptr;
  std::FILE* f = font_file != nullptr ? std::fopen(font_file, "rb") : nullptr;
  if (f != nullptr) {
    std::fclose(f);
    // Latin-1 plus the symbols the lanes use (µ, ×, arrows, dashes), as the app's.
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x2010, 0x2044, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
    io.Fonts->AddFontFromFileTTF(font_file, font_px, nullptr, ranges);
  }
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);  // builds the atlas, as a renderer would
  io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
}

HeadlessContext::~HeadlessContext() { ImGui::DestroyContext(context_); }

void HeadlessContext::begin_frame(float dt) {
  ImGui::SetCurrentContext(context_);
  ImGui::GetIO().DeltaTime = dt;
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  ImGui::Begin("##headless", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
}

ImDrawData* HeadlessContext::end_frame() {
  ImGui::End();
  ImGui::Render();
  return ImGui::GetDrawData();
}

}  // namespace asyncscope::widgets
