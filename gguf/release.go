package gguf

import "unsafe"

// Release tells the operating system that the mapped pages lying wholly
// inside b, a slice returned by TensorData, are not needed now. They leave
// the process's resident set; touching them again reads them back from the
// page cache or the file, so the contents never change. Callers use it when
// they keep their own copy of a tensor (e.g. a repacked layout), so that the
// process does not hold the weights twice.
//
// It is a no-op for a File from Parse (the caller's memory), on systems
// without madvise, and for b outside the file's data.
func (f *File) Release(b []byte) {
	if !f.mapped || len(b) == 0 || len(f.data) == 0 {
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < base || p+uintptr(len(b)) > base+uintptr(len(f.data)) {
		return
	}
	off := int(p - base)
	releasePages(f.data, off, off+len(b))
}
