import { diag } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/**
 * The SDK's sampler the standard variables name, read as the specification (and
 * `@opentelemetry/sdk-node`) reads them: OTEL_TRACES_SAMPLER always_on, always_off, traceidratio
 * or parentbased_* of those (default, and for a name this build does not know:
 * parentbased_always_on), OTEL_TRACES_SAMPLER_ARG the ratio (default, and when it is not a ratio
 * in [0, 1]: 1). The SDK's TracerProvider no longer reads the variables itself.
 */
export function samplerFromEnv(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const ratio = (): number => {
    const arg = Number(env.OTEL_TRACES_SAMPLER_ARG);
    if (env.OTEL_TRACES_SAMPLER_ARG?.trim() && arg >= 0 && arg <= 1) return arg;
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${env.OTEL_TRACES_SAMPLER_ARG} is not a ratio, using 1`);
    return 1;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      if (name !== 'parentbased_always_on')
        diag.error(`OTEL_TRACES_SAMPLER=${name} is not supported, using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}
