//! `git papayu mcp`: papayu as a Model Context Protocol server over stdio.
//!
//! Any MCP client (Claude Code, Codex, Cursor, …) can then propose changes through papayu
//! instead of writing into the user's tree: its plan text is validated, stored and applied as a
//! `papayu/*` proposal branch with the user's own check, exactly as `plan` and `apply` would.
//! The protocol itself is the official SDK's (`rmcp`): it negotiates the revision with the
//! client, frames messages and routes requests; this module only declares the tools and runs
//! them. In front of it, [`lines`] reads what the client sends and answers a line that is no
//! JSON-RPC message (not UTF-8, not JSON, past [`lines::MAX_LINE_BYTES`]) with a JSON-RPC error,
//! which the SDK would drop without a word. Standard output carries nothing but protocol: every
//! status line and warning the commands would print goes to standard error, which clients log.
//!
//! Each tool call runs on its own thread with its own repository handle, so a long check does
//! not stall the connection; nothing a tool does touches the working tree, the index or HEAD.
//! There is deliberately no merge tool: merging a proposal into the user's branch stays a
//! person's decision, made with `git papayu merge`.

mod lines;
mod observed;
mod tools;

use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

use super::{CliError, CliResult};

/// Serve papayu's tools to an AI agent over the Model Context Protocol (stdio).
///
/// Register it with your agent (docs/agents.md): for Claude Code, `claude mcp add papayu -- git
/// papayu mcp`. The agent can then validate a plan, propose it (stored and applied as a papayu/*
/// branch with your configured check), list, show, diff, compare and discard proposals, and see the
/// context a goal would gather. It cannot merge: that stays your decision. Run it in the
/// repository the agent works on (or pass -C DIR).
#[derive(Debug, Args)]
pub struct McpArgs {}

pub fn run(args: McpArgs) -> CliResult {
    let McpArgs {} = args;
    // Fail now, in words, rather than after the client's handshake.
    git_papayu::store::Store::open()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Internal(e.into()))?;
    runtime.block_on(serve()).map_err(CliError::Internal)
}

/// Serves the tools on standard input and output, the line filter in front of the SDK: the
/// client's lines go through [`lines::filter`] to the SDK's transport, and its output and the
/// filter's answers share standard output line by line.
async fn serve() -> anyhow::Result<()> {
    let (to_server, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, from_server) = tokio::io::duplex(64 * 1024);
    let out = lines::Out::stdout();
    let input = tokio::io::BufReader::new(tokio::io::stdin());
    let filter = tokio::spawn(lines::filter(input, to_server, out.clone()));
    let relay = tokio::spawn(lines::relay(tokio::io::BufReader::new(from_server), out));
    // The filter has bounded the lines already.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(server_in, server_out)
        .with_max_line_length(lines::MAX_LINE_BYTES + 2);
    match Papayu.serve(transport).await {
        Ok(running) => {
            running.waiting().await?;
        }
        // A client that left before its first request (only bad lines, say) is no failure.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {}
        Err(e) => return Err(e.into()),
    }
    // Whatever the server wrote last reaches the client before the process ends.
    relay.await??;
    filter.abort();
    Ok(())
}

/// The server: stateless, since every tool call opens the repository anew.
#[derive(Clone, Copy)]
struct Papayu;

impl ServerHandler for Papayu {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("git-papayu", env!("CARGO_PKG_VERSION")))
            .with_instructions(tools::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::all().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !tools::NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("no tool named {name}; tools/list says which there are"),
                None,
            ));
        }
        let arguments = request.arguments.unwrap_or_default();
        // From the handshake, or (stateless revisions, 2026-07-28 on) the request's `_meta`.
        let agent = context
            .client_info()
            .map(|info| info.name)
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| "agent".to_string());
        // Tools block (git, a check, a model): on a thread of their own, never on the
        // connection's. A plain thread, since asking a model starts a runtime of its own.
        let (send, receive) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let _ = send.send(tools::call(&name, &arguments, &agent));
        });
        let result: CallToolResult = receive.await.map_err(|_| {
            ErrorData::internal_error("the tool's thread ended without an answer", None)
        })?;
        Ok(result.into())
    }
}
