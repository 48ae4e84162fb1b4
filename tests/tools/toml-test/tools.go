//go:build tools

// Package tools pins toml-test, the TOML test suite the tests run: its runner (cmd/toml-test) and its
// test files (the module's tests/ folder); tests/tools/install-testdata.sh installs both from this
// module's go.mod and go.sum.
package tools

import _ "github.com/toml-lang/toml-test/v2/cmd/toml-test"
