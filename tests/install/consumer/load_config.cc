// allocore::adapters from an installed allocore: a queues.yaml read and turned into a kernel.
#include <cstdio>

#include "allocore/adapters/config_loader.h"
#include "allocore/kernel.h"

int main() {
  allocore::adapters::ConfigLoadResult loaded = allocore::adapters::LoadConfigText(
      "partitions: [{name: default, queues: [{name: root, submitacl: '*', queues: [{name: a}]}]}]",
      "queues.yaml");
  if (!loaded.config) return 1;
  auto kernel = allocore::Kernel::Create(*loaded.config);
  if (!kernel.ok()) return 1;
  auto queues = (*kernel)->ListQueues("default");
  if (!queues.ok()) return 1;
  std::printf("%zu queues\n", queues->size());
  return queues->size() == 2 ? 0 : 1;
}
