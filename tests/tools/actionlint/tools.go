//go:build tools

// Package tools pins actionlint, the workflow linter the tests run; tests/tools/install-validators.sh
// builds it from this module's go.mod and go.sum.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
