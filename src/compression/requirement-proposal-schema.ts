import { z } from 'zod';
import { RequirementPrioritySchema, RequirementTypeSchema } from './requirement-schema.ts';

/**
 * What a model (or the offline heuristic) proposes for one user message. Every field is
 * required and optional values are `null`, so providers' strict JSON-schema modes accept it.
 * Quotes must be copied verbatim from the user's message; ids of new items are not proposed.
 * Strict objects: an unknown field is an error, never silently dropped.
 */
export const ProposedRequirementOpSchema = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('add'),
    type: RequirementTypeSchema,
    priority: RequirementPrioritySchema,
    text: z.string().describe('The requirement, restated in one short sentence.'),
    quote: z.string().describe("Verbatim substring of the user's message that states it."),
  }),
  z.strictObject({
    op: z.literal('update'),
    id: z.string().describe('Id of an existing requirement.'),
    text: z.string().nullable(),
    type: RequirementTypeSchema.nullable(),
    priority: RequirementPrioritySchema.nullable(),
    status: z.enum(['open', 'done']).nullable(),
    quote: z.string(),
  }),
  z.strictObject({ op: z.literal('cancel'), id: z.string(), quote: z.string() }),
  z.strictObject({ op: z.literal('reset'), quote: z.string() }),
]);
/** A value of {@link ProposedRequirementOpSchema}. */
export type ProposedRequirementOp = z.infer<typeof ProposedRequirementOpSchema>;

/** A model's proposal: zero or more ops (an empty list means "no requirement change"). */
export const RequirementProposalSchema = z.strictObject({ ops: z.array(ProposedRequirementOpSchema) });
/** A value of {@link RequirementProposalSchema}. */
export type RequirementProposal = z.infer<typeof RequirementProposalSchema>;
