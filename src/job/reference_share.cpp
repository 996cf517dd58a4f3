// SPDX-License-Identifier: BSD-2-Clause
// vqe::ReferenceShare's public side (the inside: reference_share.h).

#include "job/reference_share.h"

namespace vqe {

ReferenceShare::ReferenceShare(unsigned jobs) : impl_(std::make_unique<Impl>()) {
  impl_->jobs = jobs;
}

ReferenceShare::~ReferenceShare() = default;

unsigned long long ReferenceShare::computed() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->computed;
}

unsigned long long ReferenceShare::reused() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->reused;
}

}  // namespace vqe
