package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// memoryURI is the scheme of a memory as an MCP resource: memory://ID.
const memoryURI = "memory://"

// addResourcesAndPrompts registers the memory://{id} resource template and
// the recall_context prompt.
func (s *Server) addResourcesAndPrompts() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "memory", Title: "A stored memory",
		Description: "One memory by id (as search results and get_context cite them): its content with type, date, tags and source.",
		MIMEType:    "text/markdown", URITemplate: memoryURI + "{id}"}, s.readMemory)
	s.mcp.AddPrompt(&mcp.Prompt{Name: "recall_context", Title: "Recall context for this task",
		Description: "Puts the stored memories that matter for a task into the conversation, packed into a token budget with citations.",
		Arguments: []*mcp.PromptArgument{
			{Name: "task", Description: "what you are about to do, in a sentence", Required: true},
			{Name: "budget", Description: "the most tokens the memories may take (64 to 32000; default 2000)"},
		}}, s.recallPrompt)
}

func (s *Server) readMemory(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	if !strings.HasPrefix(uri, memoryURI) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, err := s.memoryID(ctx, "uri", strings.TrimPrefix(uri, memoryURI))
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	m, err := s.store.Get(ctx, id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s · %s · %s", m.Type, m.CreatedAt.UTC().Format("2006-01-02 15:04"), m.ID)
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, " · tags %s", strings.Join(m.Tags, ", "))
	}
	if m.Source != "" {
		fmt.Fprintf(&b, " · source %s", m.Source)
	}
	fmt.Fprintf(&b, "\n\n%s\n", m.Content)
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: b.String()}}}, nil
}

func (s *Server) recallPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	in := contextIn{Query: req.Params.Arguments["task"]}
	if b := req.Params.Arguments["budget"]; b != "" {
		if _, err := fmt.Sscan(b, &in.Budget); err != nil {
			return nil, badArg("budget", "give a number of tokens such as 2000", "%q is not a number", b)
		}
	}
	out, err := getContext(ctx, s, in)
	if err != nil {
		return nil, err
	}
	co := out.(ContextOutput)
	text := fmt.Sprintf("Memories stored earlier that may matter for this task (cite them by their [n] handle; read one whole as memory://ID):\n\n%s\nTask: %s",
		co.Markdown, req.Params.Arguments["task"])
	return &mcp.GetPromptResult{Description: fmt.Sprintf("%d memories, %d of %d tokens", len(co.Cites), co.Tokens, co.Budget),
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}
