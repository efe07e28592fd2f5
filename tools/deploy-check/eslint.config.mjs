import base, { toolBoundariesRule } from '../../eslint.config.mjs';

// The checks validate the Kubernetes configuration with the apps' configuration classes,
// exported by their test harnesses (@bank/<app>/testing).
export default [...base, { rules: toolBoundariesRule }];
