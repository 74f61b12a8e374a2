/* Debian's stb_image.h compiled into the fuzz targets with the sanitizers (the shipped libstb.so is not). */
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
