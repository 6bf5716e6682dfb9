#include "allocore/version.h"

extern "C" __attribute__((visibility("default"))) const char* allocore_version(void) {
  return ALLOCORE_VERSION_STRING;
}
