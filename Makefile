# Protocol checks. `make test-protocol` replays the golden traces and runs the protocol tests;
# `make golden` regenerates docs/golden_traces from the scenarios in tests/golden.rs (review the
# diff before committing it: see "Golden traces" in README.md).

.PHONY: golden test-protocol

golden:
	cargo test --locked --test golden -- --ignored regenerate

test-protocol:
	cargo test --locked --test golden --test protocol_rules --test protocol_schema --test protocol_props --test protocol_docs
