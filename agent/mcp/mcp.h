/* agent/mcp/mcp.h: the MCP server (docs/mcp.md): `artemis-gitops mcp
 * --config FILE`, the Model Context Protocol over stdio, through which an
 * assistant reads the fleet (clusters, nodes, snapshots, validation, the
 * ADR-0084 preflight of a queue delete) and prepares plans, written as
 * previews like `plan` and `delete-queue` write them. It can approve and
 * apply nothing: a person approves a preview with `approve` or on the
 * page. What main.c needs of it: the command. */
#ifndef AGENT_MCP_MCP_H
#define AGENT_MCP_MCP_H

#include "../agent.h"

extern const struct agent_cmd_entry mcp_cmd_entry;

#endif
