/**
 * CloudWatch Logs' JSON filter conditions as infra/stack/route-classes.ts writes them (`$.field =
 * "v"`, `!=`, `&&`, `||`, parentheses), evaluated on one access-log line: which class's metric
 * would count a request.
 */
export const matchesCondition = (condition: string, line: Record<string, string>): boolean => {
  const js = condition
    .replace(/\$\.(\w+)/g, (_, field: string) => `line[${JSON.stringify(field)}]`)
    .replace(/ != /g, ' !== ')
    .replace(/ = /g, ' === ');
  if (!/^[\w\s"[\]().|&!=/{}~*-]*$/.test(js)) throw new Error(`not a condition: ${condition}`);
  return new Function('line', `return (${js});`)(line) as boolean;
};

/** Whether an access-log line of `method path` (the route's template path) is counted for a class. */
export const matchesClass = (condition: string, httpMethod: string, resourcePath: string) =>
  matchesCondition(condition, { httpMethod, resourcePath });
