#include "olla/core/stack_thread.h"

#include <utility>

namespace olla {

StackThread::StackThread(size_t stack_bytes, std::function<void()> body)
    : body_(std::move(body)) {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) == 0) {
    started_ = pthread_attr_setstacksize(&attributes, stack_bytes) == 0 &&
               pthread_create(&thread_, &attributes, &StackThread::Start, this) == 0;
    pthread_attr_destroy(&attributes);
  }
  if (!started_) body_();
}

StackThread::~StackThread() {
  if (started_) pthread_join(thread_, nullptr);
}

void* StackThread::Start(void* self) {
  static_cast<StackThread*>(self)->body_();
  return nullptr;
}

}  // namespace olla
