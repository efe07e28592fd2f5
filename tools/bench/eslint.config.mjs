import base, { toolBoundariesRule } from '../../eslint.config.mjs';

// The bench takes payload builders and the card issue statements from the apps' test
// harnesses (@bank/<app>/testing); it starts the apps' production bundles itself.
export default [...base, { rules: toolBoundariesRule }];
