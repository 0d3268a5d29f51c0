import type { LanguageModel } from 'ai';
import { baseUrlOf, type ModelConfig } from './model-config';

export { baseUrlOf, describeModel, type ModelConfig } from './model-config';

/** The AI SDK model for a configuration; no request is made until it is called. The SDK loads on first use. */
export async function createLanguageModel(config: ModelConfig): Promise<LanguageModel> {
  const baseURL = baseUrlOf(config);
  if (config.provider === 'anthropic') {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    // An empty key still builds the model; the provider's 401 then names the missing key.
    return createAnthropic({ baseURL, apiKey: config.apiKey ?? '' })(config.model);
  }
  const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
  const provider = createOpenAICompatible({
    name: config.provider,
    baseURL,
    apiKey: config.apiKey ?? undefined,
    includeUsage: true,
  });
  return provider.chatModel(config.model);
}
