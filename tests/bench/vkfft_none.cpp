// specview-bench without VkFFT: the configure step found no headers or no CUDA driver library (see its message).
#include <stdexcept>

#include "tests/bench/vkfft_peer.h"

namespace specview::bench {

struct VkfftPlan::Impl {};
VkfftPlan::VkfftPlan(int, int, bool, void*, void*, cudaStream_t, int) {
    throw std::runtime_error("specview-bench was built without VkFFT");
}
VkfftPlan::~VkfftPlan() = default;
void VkfftPlan::forward() {}
std::string vkfft_status() { return "VkFFT not built: " SPECVIEW_VKFFT_WHY; }
bool vkfft_built() { return false; }

}  // namespace specview::bench
