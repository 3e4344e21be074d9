/* libtiff, loaded when the first TIFF is read or written rather than
 * linked: a process that meets no TIFF never maps it, nor the libraries
 * it pulls in (libwebp, libzstd, liblzma, libLerc with libstdc++, libjbig,
 * libjpeg, libz), which took 1.9 ms of every gpuimg start on the 2-core
 * machine (a served call's client included), and a machine without
 * libtiff runs everything but TIFF. The TIFF sources call libtiff by its
 * own names; the macros below turn them into the loaded entries. */
#ifndef GI_TIFF_LIB_H
#define GI_TIFF_LIB_H

#include <tiffio.h>

typedef struct gi__tiff_calls {
    __typeof__(TIFFClientOpenExt) *ClientOpenExt;
    __typeof__(TIFFClose) *Close;
    __typeof__(TIFFComputeTile) *ComputeTile;
    __typeof__(TIFFGetField) *GetField;
    __typeof__(TIFFGetFieldDefaulted) *GetFieldDefaulted;
    __typeof__(TIFFGetStrileByteCount) *GetStrileByteCount;
    __typeof__(TIFFGetStrileOffset) *GetStrileOffset;
    __typeof__(TIFFIsByteSwapped) *IsByteSwapped;
    __typeof__(TIFFIsTiled) *IsTiled;
    __typeof__(TIFFNumberOfDirectories) *NumberOfDirectories;
    __typeof__(TIFFNumberOfStrips) *NumberOfStrips;
    __typeof__(TIFFOpenOptionsAlloc) *OpenOptionsAlloc;
    __typeof__(TIFFOpenOptionsFree) *OpenOptionsFree;
    __typeof__(TIFFOpenOptionsSetErrorHandlerExtR) *OpenOptionsSetErrorHandlerExtR;
    __typeof__(TIFFOpenOptionsSetMaxSingleMemAlloc) *OpenOptionsSetMaxSingleMemAlloc;
    __typeof__(TIFFOpenOptionsSetWarningHandlerExtR) *OpenOptionsSetWarningHandlerExtR;
    __typeof__(TIFFReadEncodedStrip) *ReadEncodedStrip;
    __typeof__(TIFFReadEncodedTile) *ReadEncodedTile;
    __typeof__(TIFFSetField) *SetField;
    __typeof__(TIFFWriteDirectory) *WriteDirectory;
    __typeof__(TIFFWriteEncodedStrip) *WriteEncodedStrip;
    __typeof__(TIFFWriteRawStrip) *WriteRawStrip;
} gi__tiff_calls;

/* Every entry, once gi__tiff_load has returned 1. */
extern gi__tiff_calls gi__tiff_lib;

/* 1 once libtiff is loaded (the first call loads it, once a process);
 * 0 when it cannot be, gi__tiff_load_error saying why. */
int gi__tiff_load(void);
const char *gi__tiff_load_error(void);

#define TIFFClientOpenExt gi__tiff_lib.ClientOpenExt
#define TIFFClose gi__tiff_lib.Close
#define TIFFComputeTile gi__tiff_lib.ComputeTile
#define TIFFGetField gi__tiff_lib.GetField
#define TIFFGetFieldDefaulted gi__tiff_lib.GetFieldDefaulted
#define TIFFGetStrileByteCount gi__tiff_lib.GetStrileByteCount
#define TIFFGetStrileOffset gi__tiff_lib.GetStrileOffset
#define TIFFIsByteSwapped gi__tiff_lib.IsByteSwapped
#define TIFFIsTiled gi__tiff_lib.IsTiled
#define TIFFNumberOfDirectories gi__tiff_lib.NumberOfDirectories
#define TIFFNumberOfStrips gi__tiff_lib.NumberOfStrips
#define TIFFOpenOptionsAlloc gi__tiff_lib.OpenOptionsAlloc
#define TIFFOpenOptionsFree gi__tiff_lib.OpenOptionsFree
#define TIFFOpenOptionsSetErrorHandlerExtR gi__tiff_lib.OpenOptionsSetErrorHandlerExtR
#define TIFFOpenOptionsSetMaxSingleMemAlloc gi__tiff_lib.OpenOptionsSetMaxSingleMemAlloc
#define TIFFOpenOptionsSetWarningHandlerExtR gi__tiff_lib.OpenOptionsSetWarningHandlerExtR
#define TIFFReadEncodedStrip gi__tiff_lib.ReadEncodedStrip
#define TIFFReadEncodedTile gi__tiff_lib.ReadEncodedTile
#define TIFFSetField gi__tiff_lib.SetField
#define TIFFWriteDirectory gi__tiff_lib.WriteDirectory
#define TIFFWriteEncodedStrip gi__tiff_lib.WriteEncodedStrip
#define TIFFWriteRawStrip gi__tiff_lib.WriteRawStrip

#endif
