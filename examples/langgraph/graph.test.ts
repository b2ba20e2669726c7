import { describe, expect, it } from 'vitest';
import { Blackboard } from '../../src/state/index.ts';
import { graph } from './graph.ts';

describe('examples/langgraph graph', () => {
  it('is a compiled LangGraph graph with its agent node and a name', async () => {
    expect(graph.name).toBe('ctxloom-sequential');
    const drawable = await graph.getGraphAsync();
    expect(Object.keys(drawable.nodes)).toContain('assistant');
  });

  it("has a JSON schema whose messages field is what Studio's chat view looks for", () => {
    const schema = Blackboard.schema.getJsonSchema() as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(schema.properties.messages?.langgraph_type).toBe('messages');
    for (const key of Blackboard.keys) expect(Object.keys(schema.properties)).toContain(key);
  });
});
