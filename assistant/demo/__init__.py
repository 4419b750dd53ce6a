"""The bundled demo recording (package data) that `mahj demo` plays."""
