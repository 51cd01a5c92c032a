//! Schedule TOML: parser, validator, worst-case timeline and code generation.
