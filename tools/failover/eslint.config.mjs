import base, { toolBoundariesRule } from '../../eslint.config.mjs';

// This tool starts the apps through their test harnesses (@bank/<app>/testing).
export default [...base, { rules: toolBoundariesRule }];
