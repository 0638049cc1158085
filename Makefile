# Protocol checks. `make test-protocol` replays the golden traces and runs the protocol tests;
# `make golden` regenerates docs/golden_traces from the scenarios in tests/it/golden.rs (review
# the diff before committing it: see "Golden traces" in README.md).

.PHONY: golden test-protocol

golden:
	cargo test --locked --test it golden:: -- --ignored regenerate

test-protocol:
	cargo test --locked --test it -- golden:: protocol_
