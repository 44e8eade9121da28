#include "widgets/imgui_context.h"

#include <cstdint>

namespace asyncscope::widgets {

HeadlessContext::HeadlessContext(float width, float height) : context_(ImGui::CreateContext()) {
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(width, height);
  io.IniFilename = nullptr;
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
