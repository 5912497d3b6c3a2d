// ECharts, tree-shaken: line, bar and pie with the components the dashboard uses. Loaded on
// demand by TrendChart (a chunk of its own), never in the shell bundle.
import { BarChart, LineChart, PieChart } from 'echarts/charts'
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components'
import { init, use } from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'

use([LineChart, BarChart, PieChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer])

export { init }
